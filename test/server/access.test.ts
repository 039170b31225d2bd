import { addUser, bearerLogin, cookieLogin, expectProblem, origin, setup, type Harness } from './helpers';

let h: Harness;
afterEach(() => h.close());

/** An app with an admin-only and a user-only test route, registered before it is ready. */
async function setupWithRoutes() {
  h = await setup();
  h.app.get('/test/admin-only', { config: { access: 'admin' } }, async () => ({ secret: 'admin stuff' }));
  h.app.post('/test/change', { config: { access: 'user' } }, async () => ({ changed: true }));
  await addUser(h.db, 'admin@example.com', 'admin');
  await addUser(h.db, 'regular@example.com', 'regular');
}

describe('access rules', () => {
  beforeEach(setupWithRoutes);

  it('answers 401 to anonymous callers of a user route', async () => {
    const body = expectProblem(await h.app.inject({ url: '/auth/me' }), 401);
    expect(body.title).toBe('Unauthorized');
  });

  it('answers 403 to a regular user on an admin route', async () => {
    const cookie = await cookieLogin(h, 'regular@example.com');

    const res = await h.app.inject({ url: '/test/admin-only', headers: { cookie } });

    expect(expectProblem(res, 403).title).toBe('Forbidden');
    expect(res.body).not.toContain('admin stuff');
  });

  it('lets an admin through, by cookie or bearer token', async () => {
    const cookie = await cookieLogin(h, 'admin@example.com');
    const authorization = await bearerLogin(h, 'admin@example.com');

    expect((await h.app.inject({ url: '/test/admin-only', headers: { cookie } })).json()).toEqual({ secret: 'admin stuff' });
    expect((await h.app.inject({ url: '/test/admin-only', headers: { authorization } })).statusCode).toBe(200);
  });

  it('answers 401 to an invalid bearer token even with a valid cookie', async () => {
    const cookie = await cookieLogin(h, 'admin@example.com');

    const res = await h.app.inject({ url: '/auth/me', headers: { cookie, authorization: 'Bearer not-a-token' } });

    expectProblem(res, 401);
  });
});

describe('CSRF defence', () => {
  beforeEach(setupWithRoutes);

  it('refuses a cookie-authenticated POST from a foreign Origin', async () => {
    const cookie = await cookieLogin(h, 'regular@example.com');

    const res = await h.app.inject({ method: 'POST', url: '/test/change', headers: { cookie, origin: 'https://evil.example' } });

    expectProblem(res, 403);
    // The session survived: logout from a foreign page did not happen either.
    const logout = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin: 'https://evil.example' } });
    expectProblem(logout, 403);
    expect((await h.app.inject({ url: '/auth/me', headers: { cookie } })).statusCode).toBe(200);
  });

  it('refuses a cookie-authenticated POST without an Origin header', async () => {
    const cookie = await cookieLogin(h, 'regular@example.com');

    expectProblem(await h.app.inject({ method: 'POST', url: '/test/change', headers: { cookie } }), 403);
  });

  it('accepts a cookie-authenticated POST from an allowed Origin, and bearer calls without Origin', async () => {
    const cookie = await cookieLogin(h, 'regular@example.com');
    const authorization = await bearerLogin(h, 'regular@example.com');

    expect((await h.app.inject({ method: 'POST', url: '/test/change', headers: { cookie, origin } })).json()).toEqual({ changed: true });
    expect((await h.app.inject({ method: 'POST', url: '/test/change', headers: { authorization } })).statusCode).toBe(200);
  });

  it('refuses a sign-in posted from a foreign Origin', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/auth/login?useCookies=true',
      headers: { origin: 'https://evil.example' },
      payload: { email: 'regular@example.com', password: 'Correct-Horse-7' },
    });

    expectProblem(res, 403);
    expect(res.cookies).toHaveLength(0);
  });
});

describe('route registration', () => {
  it('refuses to start when a route does not declare its access rule', async () => {
    h = await setup();

    expect(() => h.app.get('/test/open', async () => 'oops')).toThrow(/must declare config.access/);
    expect(() => h.app.get('/test/typo', { config: { access: 'everyone' as 'public' } }, async () => 'oops')).toThrow(
      /must declare config.access/,
    );
  });
});
