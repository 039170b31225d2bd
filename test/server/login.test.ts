import { listAudit } from '../../server/db/audit';
import { setDisabled, setTwoFactor } from '../../server/db/users';
import { totpCode } from '../../server/auth/totp';
import { addUser, bearerLogin, cookieLogin, expectProblem, goodPassword, login, origin, setup, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup();
  await addUser(h.db, 'Alice@Example.com');
});
afterEach(() => h.close());

const alice = { email: 'alice@example.com', password: goodPassword };

describe('POST /auth/login with cookies', () => {
  it('sets a persistent HttpOnly, SameSite=Lax cookie for 14 days and answers an empty 200', async () => {
    const res = await login(h, alice, '?useCookies=true');

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    const cookie = res.cookies.find((c) => c.name === 'warden_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 14 * 24 * 3600 });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.value).toMatch(/^[\w-]{43}$/);
  });

  it('sets a session cookie without Max-Age when useSessionCookies is true', async () => {
    const res = await login(h, alice, '?useSessionCookies=true');

    expect(res.statusCode).toBe(200);
    const cookie = res.cookies.find((c) => c.name === 'warden_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.maxAge).toBeUndefined();
    expect(cookie?.expires).toBeUndefined();
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    await h.close();
    h = await setup({ config: { publicUrl: 'https://warden.example.com' } });
    await addUser(h.db, alice.email);

    const res = await login(h, alice, '?useCookies=true');

    expect(res.cookies.find((c) => c.name === 'warden_session')?.secure).toBe(true);
  });

  it('signs in case-insensitively and the cookie authenticates /auth/me', async () => {
    const cookie = await cookieLogin(h, 'ALICE@example.COM');

    const me = await h.app.inject({ url: '/auth/me', headers: { cookie } });

    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      id: expect.any(String),
      email: 'alice@example.com',
      role: 'regular',
      emailConfirmed: false,
      twoFactorEnabled: false,
    });
  });
});

describe('POST /auth/login for bearer tokens', () => {
  it('answers an access and a refresh token; the access token works on /auth/me', async () => {
    const res = await login(h, alice);

    expect(res.statusCode).toBe(200);
    const tokens = res.json();
    expect(tokens).toEqual({ tokenType: 'Bearer', accessToken: expect.any(String), expiresIn: 3600, refreshToken: expect.any(String) });
    expect(res.cookies).toHaveLength(0);
    expect(res.headers['cache-control']).toBe('no-store');

    const me = await h.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().email).toBe('alice@example.com');
  });

  it('does not accept the refresh token as an access token', async () => {
    const { refreshToken } = (await login(h, alice)).json();

    const me = await h.app.inject({ url: '/auth/me', headers: { authorization: `Bearer ${refreshToken}` } });

    expectProblem(me, 401);
  });

  it('lets the access token expire after an hour', async () => {
    const authorization = await bearerLogin(h, alice.email);
    h.clock.advance(3600_000 + 1);

    expectProblem(await h.app.inject({ url: '/auth/me', headers: { authorization } }), 401);
  });
});

describe('login failures', () => {
  it('answers 401 Failed for a wrong password and for an unknown e-mail alike', async () => {
    const wrong = await login(h, { ...alice, password: 'Wrong-pass-1' });
    const unknown = await login(h, { email: 'nobody@example.com', password: goodPassword });

    expect(expectProblem(wrong, 401).detail).toBe('Failed');
    expect(expectProblem(unknown, 401).detail).toBe('Failed');
    expect({ ...unknown.json(), requestId: undefined }).toEqual({ ...wrong.json(), requestId: undefined });
  });

  it('locks the account on the fifth failure, even against the right password, and unlocks after 5 minutes', async () => {
    const details: string[] = [];
    for (let i = 0; i < 5; i++) details.push((await login(h, { ...alice, password: `Wrong-pass-${i}` })).json().detail);
    // A locked account answers as a wrong password does, so a guesser learns nothing from it.
    expect(details).toEqual(['Failed', 'Failed', 'Failed', 'Failed', 'Failed']);

    expect(expectProblem(await login(h, alice), 401).detail).toBe('Failed');
    h.clock.advance(4 * 60_000 + 59_000);
    expect(expectProblem(await login(h, alice), 401).detail).toBe('Failed');

    h.clock.advance(2_000);
    expect((await login(h, alice)).statusCode).toBe(200);
  });

  it('resets the failure count after a successful sign-in', async () => {
    for (let i = 0; i < 4; i++) await login(h, { ...alice, password: 'Wrong-pass-1' });
    expect((await login(h, alice)).statusCode).toBe(200);

    const next = await login(h, { ...alice, password: 'Wrong-pass-1' });

    expect(next.json().detail).toBe('Failed');
  });

  it('answers NotAllowed for a disabled user with the right password, Failed with a wrong one', async () => {
    const user = await addUser(h.db, 'bob@example.com');
    await setDisabled(h.db, user.id, true);

    expect(expectProblem(await login(h, { email: 'bob@example.com', password: goodPassword }), 401).detail).toBe('NotAllowed');
    expect(expectProblem(await login(h, { email: 'bob@example.com', password: 'Wrong-pass-1' }), 401).detail).toBe('Failed');
  });

  it('records sign-in successes and failures in the audit log', async () => {
    await login(h, { ...alice, password: 'Wrong-pass-1' });
    await login(h, alice);

    const entries = await listAudit(h.db);
    expect(entries.map((e) => [e.action, e.target, e.outcome])).toEqual(
      expect.arrayContaining([
        ['auth.login', 'alice@example.com', 'failure'],
        ['auth.login', 'alice@example.com', 'success'],
      ]),
    );
    expect(JSON.stringify(entries)).not.toContain('Wrong-pass-1');
  });
});

describe('two-factor sign-in', () => {
  const secret = 'JBSWY3DPEHPK3PXP';
  beforeEach(async () => {
    const user = await addUser(h.db, 'carol@example.com');
    await setTwoFactor(h.db, user.id, { enabled: true, secret });
  });
  const carol = { email: 'carol@example.com', password: goodPassword };

  it('asks for the second factor when no code is given', async () => {
    expect(expectProblem(await login(h, carol), 401).detail).toBe('RequiresTwoFactor');
  });

  it('accepts the current TOTP code and the one from the previous step', async () => {
    // The previous step first: once a code is used, no code of that step or an earlier one is accepted.
    const previous = totpCode(secret, new Date(h.clock.now().getTime() - 30_000));
    expect((await login(h, { ...carol, twoFactorCode: previous })).statusCode).toBe(200);

    expect((await login(h, { ...carol, twoFactorCode: totpCode(secret, h.clock.now()) })).statusCode).toBe(200);
  });

  it('answers Failed for a wrong or stale code, and counts it towards lockout', async () => {
    const stale = totpCode(secret, new Date(h.clock.now().getTime() - 120_000));
    expect(expectProblem(await login(h, { ...carol, twoFactorCode: stale }), 401).detail).toBe('Failed');
    for (let i = 0; i < 3; i++) await login(h, { ...carol, twoFactorCode: '000000' });

    const fifth = await login(h, { ...carol, twoFactorCode: '000000' });

    expect(fifth.json().detail).toBe('Failed');
    // Locked now: the right code is refused too, with the same answer.
    expect(expectProblem(await login(h, { ...carol, twoFactorCode: totpCode(secret, h.clock.now()) }), 401).detail).toBe('Failed');
  });
});

describe('session endpoints', () => {
  it('GET /auth/check answers 200 {} when signed in and 401 when not', async () => {
    const cookie = await cookieLogin(h, alice.email);

    const signedIn = await h.app.inject({ url: '/auth/check', headers: { cookie } });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toEqual({});
    expectProblem(await h.app.inject({ url: '/auth/check' }), 401);
  });

  it('POST /auth/logout ends the cookie session and clears the cookie', async () => {
    const cookie = await cookieLogin(h, alice.email);

    const res = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin } });

    expect(res.statusCode).toBe(200);
    const cleared = res.cookies.find((c) => c.name === 'warden_session');
    expect(cleared?.value).toBe('');
    expect(new Date(cleared?.expires ?? Date.now()).getTime()).toBeLessThan(Date.now());
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
    expect((await listAudit(h.db)).some((e) => e.action === 'auth.logout')).toBe(true);
  });

  it('POST /auth/logout with a bearer token revokes that token', async () => {
    const authorization = await bearerLogin(h, alice.email);

    expect((await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { authorization } })).statusCode).toBe(200);

    expectProblem(await h.app.inject({ url: '/auth/me', headers: { authorization } }), 401);
  });

  it('keeps other sessions of the same user alive on logout', async () => {
    const first = await cookieLogin(h, alice.email);
    const second = await cookieLogin(h, alice.email);

    await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: first, origin } });

    expect((await h.app.inject({ url: '/auth/me', headers: { cookie: second } })).statusCode).toBe(200);
  });

  it('treats a cookie session as anonymous once it expires after 14 days', async () => {
    const cookie = await cookieLogin(h, alice.email);
    h.clock.advance(14 * 24 * 3600_000 + 1000);

    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
  });

  it('treats the sessions of a user who gets disabled as anonymous', async () => {
    const cookie = await cookieLogin(h, alice.email);
    const me = (await h.app.inject({ url: '/auth/me', headers: { cookie } })).json();

    await setDisabled(h.db, me.id, true);

    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
  });
});
