import { hasRole, roleRank } from '../../contracts/roles';

describe('hasRole (SPEC §6)', () => {
  it('ranks admin 999 and regular 100', () => {
    expect(roleRank).toEqual({ admin: 999, regular: 100 });
  });

  it('passes a single role when the user ranks at least as high', () => {
    expect(hasRole({ role: 'admin' }, 'admin')).toBe(true);
    expect(hasRole({ role: 'admin' }, 'regular')).toBe(true);
    expect(hasRole({ role: 'regular' }, 'regular')).toBe(true);
    expect(hasRole({ role: 'regular' }, 'admin')).toBe(false);
  });

  it('passes a list of roles only when the user has one of them, whatever the ranks', () => {
    expect(hasRole({ role: 'admin' }, ['admin'])).toBe(true);
    expect(hasRole({ role: 'admin' }, ['regular'])).toBe(false);
    expect(hasRole({ role: 'regular' }, ['admin', 'regular'])).toBe(true);
    expect(hasRole({ role: 'regular' }, [])).toBe(false);
  });

  it('gives no access without a user', () => {
    expect(hasRole(null, 'regular')).toBe(false);
    expect(hasRole(undefined, ['regular'])).toBe(false);
  });
});
