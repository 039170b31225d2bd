import { listAudit } from '../../server/db/audit';
import { addMembers, createGroup } from '../../server/db/groups';
import { setDisabled } from '../../server/db/users';
import { addUser, cookieLogin, expectProblem, goodPassword, login, origin, setup, type Harness } from './helpers';
import { post } from './identityHelpers';

let h: Harness;
afterEach(() => h.close());

const alice = { email: 'alice@example.com', password: goodPassword };
const refresh = (refreshToken: string) => post(h, '/auth/refresh', { refreshToken });
const me = (accessToken: string) => h.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${accessToken}` } });

describe('POST /auth/refresh', () => {
  beforeEach(async () => {
    h = await setup();
    await addUser(h.db, alice.email);
  });

  it('answers new tokens for a refresh token and uses it up', async () => {
    const first = (await login(h, alice)).json();

    const res = await refresh(first.refreshToken);

    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const second = res.json();
    expect(second).toEqual({ tokenType: 'Bearer', accessToken: expect.any(String), expiresIn: 3600, refreshToken: expect.any(String) });
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await me(second.accessToken)).json().email).toBe(alice.email);
    expect((await refresh(second.refreshToken)).statusCode).toBe(200);
  });

  it('revokes the whole family when a used refresh token comes back', async () => {
    const first = (await login(h, alice)).json();
    const second = (await refresh(first.refreshToken)).json();

    const reused = await refresh(first.refreshToken);

    expect(expectProblem(reused, 401).detail).toBe('The refresh token is not valid; sign in again.');
    // The newest tokens of that sign-in are dead too, and so is the first access token.
    expectProblem(await refresh(second.refreshToken), 401);
    expectProblem(await me(second.accessToken), 401);
    expectProblem(await me(first.accessToken), 401);
    const audit = (await listAudit(h.db)).filter((e) => e.action === 'auth.refresh');
    expect(audit.map((e) => [e.outcome, e.detail])).toEqual(
      expect.arrayContaining([
        ['success', null],
        ['failure', { cause: 'Reused' }],
      ]),
    );
  });

  it('leaves other sign-ins of the same user alone when revoking a family', async () => {
    const stolen = (await login(h, alice)).json();
    const other = (await login(h, alice)).json();
    const cookie = await cookieLogin(h, alice.email);
    await refresh(stolen.refreshToken);

    expectProblem(await refresh(stolen.refreshToken), 401);

    expect((await me(other.accessToken)).statusCode).toBe(200);
    expect((await refresh(other.refreshToken)).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/auth/me', headers: { cookie } })).statusCode).toBe(200);
  });

  it('refuses an access token, an unknown token, an expired one and a disabled user’s', async () => {
    const tokens = (await login(h, alice)).json();

    expectProblem(await refresh(tokens.accessToken), 401);
    expectProblem(await refresh('not-a-token'), 401);
    expect(expectProblem(await post(h, '/auth/refresh', {}), 400).errors).toEqual({ refreshToken: ['is required'] });

    const user = await addUser(h.db, 'bob@example.com');
    const bobs = (await login(h, { email: 'bob@example.com', password: goodPassword })).json();
    await setDisabled(h.db, user.id, true);
    expectProblem(await refresh(bobs.refreshToken), 401);

    h.clock.advance(14 * 24 * 3600_000 + 1000);
    expectProblem(await refresh(tokens.refreshToken), 401);
  });

  it('lets the refreshed token live 14 days from the refresh', async () => {
    const first = (await login(h, alice)).json();
    h.clock.advance(10 * 24 * 3600_000);
    const second = (await refresh(first.refreshToken)).json();
    h.clock.advance(10 * 24 * 3600_000);

    expect((await refresh(second.refreshToken)).statusCode).toBe(200);
  });

  it('ends the refresh token too when a bearer session logs out', async () => {
    const tokens = (await login(h, alice)).json();

    await post(h, '/auth/logout', {}, { authorization: `Bearer ${tokens.accessToken}` });

    expectProblem(await refresh(tokens.refreshToken), 401);
  });
});

describe('rate limits', () => {
  it('answers 429 per IP address on the public account calls', async () => {
    h = await setup({ config: { authRateLimit: 2 } });

    const statuses = [];
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      statuses.push((await post(h, '/auth/forgotPassword', { email })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await post(h, '/auth/forgotPassword', { email: 'd@example.com' });
    expect(expectProblem(limited, 429).detail).toMatch(/^Too many requests; try again in/);

    // Each call counts on its own, and another address is not limited.
    expect((await post(h, '/auth/resendConfirmationEmail', { email: 'a@example.com' })).statusCode).toBe(200);
    const elsewhere = await h.app.inject({
      method: 'POST',
      url: '/auth/forgotPassword',
      payload: { email: 'a@example.com' },
      remoteAddress: '10.0.0.9',
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it.each(['/auth/register', '/auth/refresh', '/auth/resetPassword'])('limits %s per IP address', async (url) => {
    h = await setup({ config: { authRateLimit: 1, allowRegistration: true } });
    const body =
      url === '/auth/refresh'
        ? { refreshToken: 'x' }
        : url === '/auth/register'
          ? { email: 'x', password: 'x' }
          : { email: 'a@example.com', resetCode: 'x', newPassword: 'x' };

    expect((await post(h, url, body)).statusCode).not.toBe(429);
    expectProblem(await post(h, url, body), 429);
  });

  it('limits GET /auth/confirmEmail per IP address', async () => {
    h = await setup({ config: { authRateLimit: 1 } });

    expectProblem(await h.app.inject({ url: '/auth/confirmEmail?userId=x&code=y' }), 401);
    expectProblem(await h.app.inject({ url: '/auth/confirmEmail?userId=x&code=y' }), 429);
  });

  it('answers 429 per account, whatever the address, on forgot, resend, reset and login', async () => {
    h = await setup({ config: { accountRateLimit: 2 } });
    await addUser(h.db, alice.email);
    const from = (n: number) => `10.0.0.${n}`;
    const call = (url: string, payload: Record<string, unknown>, n: number) =>
      h.app.inject({ method: 'POST', url, payload, remoteAddress: from(n) });

    for (const [url, payload] of [
      ['/auth/forgotPassword', { email: 'alice@example.com' }],
      ['/auth/resendConfirmationEmail', { email: 'alice@example.com' }],
      ['/auth/resetPassword', { email: 'alice@example.com', resetCode: 'x', newPassword: 'x' }],
      ['/auth/login', { email: 'alice@example.com', password: 'Wrong-pass-1' }],
    ] as const) {
      await call(url, payload, 1);
      await call(url, { ...payload, email: 'ALICE@example.com' }, 2);
      const limited = await call(url, payload, 3);
      expect(expectProblem(limited, 429).detail).toMatch(/^Too many requests for this account; try again in \d+ seconds\.$/);
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect((await call(url, { ...payload, email: 'bob@example.com' }, 3)).statusCode).not.toBe(429);
    }
  });
});

describe('GET /auth/profile', () => {
  beforeEach(async () => {
    h = await setup();
  });

  it('answers the signed-in user with their groups by name', async () => {
    const user = await addUser(h.db, alice.email);
    await addUser(h.db, 'bob@example.com');
    const ops = await createGroup(h.db, { name: 'ops' }, h.clock.now());
    const billing = await createGroup(h.db, { name: 'Billing' }, h.clock.now());
    await createGroup(h.db, { name: 'not mine' }, h.clock.now());
    await addMembers(h.db, ops.id, [user.id], h.clock.now());
    await addMembers(h.db, billing.id, [user.id], h.clock.now());
    const cookie = await cookieLogin(h, alice.email);

    const res = await h.app.inject({ url: '/auth/profile', headers: { cookie } });

    expect(res.json()).toEqual({
      id: user.id,
      email: alice.email,
      role: 'regular',
      emailConfirmed: false,
      twoFactorEnabled: false,
      createdAt: user.createdAt,
      lastLoginAt: h.clock.now().toISOString(),
      groups: [
        { id: billing.id, name: 'Billing' },
        { id: ops.id, name: 'ops' },
      ],
    });
  });

  it('answers an empty group list for a user in no group, and 401 without a session', async () => {
    await addUser(h.db, alice.email);
    const cookie = await cookieLogin(h, alice.email);

    expect((await h.app.inject({ url: '/auth/profile', headers: { cookie } })).json().groups).toEqual([]);
    expectProblem(await h.app.inject({ url: '/auth/profile' }), 401);
    expectProblem(await h.app.inject({ url: '/auth/profile', headers: { origin } }), 401);
  });
});
