import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { requireRole } from '../../../src/app/guard';
import { setupStore } from '../../../src/app/store';
import { admin, regular } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { identityScreensAtRest } from '../handlers/identityScreens';
import { instanceScreensAtRest } from '../handlers/instancesHandlers';
import { setupMsw } from '../msw';
import { renderApp } from '../renderApp';

const server = setupMsw();
// The screens opened here call the API on mount; they answer quietly so every call is handled.
// The instance screens' answers first: GET /groups/all is theirs, not a group's.
beforeEach(() => server.use(...instanceScreensAtRest(), ...identityScreensAtRest()));

const heading = (name: string) => screen.findByRole('heading', { level: 1, name });

describe('role guard (SPEC §5)', () => {
  it('lets an admin open user administration', async () => {
    server.use(meHandler(admin));
    const { location } = renderApp('/admin/users/9');
    // The User screen, titled with the user's e-mail once loaded.
    expect(await heading('una@example.com')).toBeInTheDocument();
    expect(location()).toBe('/admin/users/9');
  });

  it('lands a regular user on /instances on a first load of a forbidden route', async () => {
    server.use(meHandler(regular));
    const { location } = renderApp('/admin/users');
    expect(await heading('Instances')).toBeInTheDocument();
    expect(location()).toBe('/instances');
  });

  it('cancels a regular user’s navigation to a forbidden route: the page stays as it was', async () => {
    server.use(meHandler(regular));
    const { router, location } = renderApp('/instances');
    expect(await heading('Instances')).toBeInTheDocument();
    await act(() => router.navigate('/groups?page=2'));
    expect(await heading('Groups')).toBeInTheDocument();

    await act(() => router.navigate('/admin/users/9'));

    expect(location()).toBe('/groups?page=2');
    expect(screen.getByRole('heading', { level: 1, name: 'Groups' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { level: 1, name: 'User' })).not.toBeInTheDocument();
    // The refused target left no history entry: Back leads where it led before.
    await act(() => router.navigate(-1));
    expect(location()).toBe('/instances');
  });

  it.each(['/debug', '/admin/audit'])('sends a regular user opening %s by URL to /instances quietly, without refusals', async (path) => {
    server.use(meHandler(regular));
    const { location } = renderApp(path);
    expect(await heading('Instances')).toBeInTheDocument();
    expect(location()).toBe('/instances');
    expect(screen.queryByText('Request failed')).not.toBeInTheDocument();
  });

  it('does not send someone who just signed in back to the login page when their returnUrl is forbidden', async () => {
    server.use(meHandler(regular));
    const { location } = renderApp('/login?returnUrl=%2Fadmin%2Fusers');
    expect(await heading('Instances')).toBeInTheDocument();
    expect(location()).toBe('/instances');
  });

  it('waits for the current user before deciding', async () => {
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get('/auth/me', async () => {
        await answered;
        return HttpResponse.json(admin);
      }),
    );
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    const loader = requireRole(store, 'admin', () => null);

    let decision: unknown = 'pending';
    const deciding = Promise.resolve(loader({ request: new Request('http://localhost/admin/users'), params: {}, context: {} } as never)).then(
      (result) => (decision = result),
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(decision).toBe('pending');

    answer();
    await deciding;
    // null: no redirect, the navigation goes ahead.
    expect(decision).toBeNull();
  });

  it('refuses, once the user is known, a user without the role', async () => {
    server.use(meHandler(regular));
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    const loader = requireRole(store, 'admin', () => ({ pathname: '/logs', search: '?level=error', hash: '' }));

    const result = (await loader({ request: new Request('http://localhost/admin/users'), params: {}, context: {} } as never)) as Response;

    expect(result.status).toBe(302);
    expect(result.headers.get('Location')).toBe('/logs?level=error');
  });
});
