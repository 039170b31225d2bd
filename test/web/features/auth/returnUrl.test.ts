import { loginUrlFor, safeReturnUrl } from '../../../../src/features/auth/returnUrl';

describe('returnUrl', () => {
  it('carries the full path, query included, to the login screen', () => {
    const url = loginUrlFor({ pathname: '/groups', search: '?page=2', hash: '' });
    expect(url).toBe('/login?returnUrl=%2Fgroups%3Fpage%3D2');
    expect(new URLSearchParams(url.split('?')[1]).get('returnUrl')).toBe('/groups?page=2');
  });

  it('follows paths on this origin', () => {
    expect(safeReturnUrl('/groups?page=2')).toBe('/groups?page=2');
    expect(safeReturnUrl('/instances/7/script#top')).toBe('/instances/7/script#top');
  });

  it.each([null, '', 'https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/login?returnUrl=/x'])(
    'sends %p to /instances',
    (raw) => {
      expect(safeReturnUrl(raw)).toBe('/instances');
    },
  );
});
