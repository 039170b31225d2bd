import { URI } from 'otpauth';
import { matchTotpStep, newTotpSecret, totpCode, totpStep, totpUri } from '../../server/auth/totp';
import { listAudit } from '../../server/db/audit';
import { findByEmail } from '../../server/db/users';
import { addUser, cookieLogin, expectProblem, goodPassword, login, origin, setup, type Harness } from './helpers';
import { asCookie, lastMailTo, linkIn, post } from './identityHelpers';

// One-time authenticator codes, re-authentication for two-factor changes, password-reset codes and
// per-client lockout (with the admin's unlock and two-factor reset).

let h: Harness;
beforeEach(async () => {
  // Many sign-ins for one account: the per-account rate limit is not what these tests are about.
  h = await setup({ config: { accountRateLimit: 1000, authRateLimit: 1000 } });
  await addUser(h.db, 'alice@example.com');
});
afterEach(() => h.close());

const alice = { email: 'alice@example.com', password: goodPassword };
const codeNow = (sharedKey: string) => totpCode(sharedKey, h.clock.now());
const loginFrom = (address: string, body: Record<string, unknown>) =>
  h.app.inject({ method: 'POST', url: '/auth/login', payload: body, remoteAddress: address });
const auditOf = async (action: string) => (await listAudit(h.db)).filter((e) => e.action === action);

/** Alice with two-factor on (the enabling code's step is used up); answers her cookie and shared key. */
async function aliceWithTwoFactor() {
  const cookie = await cookieLogin(h, alice.email);
  const twoFactor = (body: Record<string, unknown>) => post(h, '/auth/manage/2fa', body, asCookie(cookie));
  const { sharedKey } = (await twoFactor({})).json() as { sharedKey: string };
  const enabled = await twoFactor({ enable: true, twoFactorCode: codeNow(sharedKey) });
  expect(enabled.statusCode).toBe(200);
  return { cookie, sharedKey, twoFactor, recoveryCodes: enabled.json().recoveryCodes as string[] };
}

describe('TOTP through otpauth', () => {
  it('writes the otpauth:// URI authenticator apps read, and it reads back to the same key', () => {
    const secret = newTotpSecret();

    const uri = totpUri(secret, 'ada+ops@example.com');

    expect(uri).toMatch(/^otpauth:\/\/totp\/Warden:ada%2Bops%40example\.com\?/);
    const parsed = URI.parse(uri);
    expect(parsed).toMatchObject({ issuer: 'Warden', label: 'ada+ops@example.com', digits: 6, period: 30, algorithm: 'SHA1' });
    expect(parsed.secret.base32).toBe(secret);
  });

  it('tells which step a code belongs to, within one step either way', () => {
    const secret = newTotpSecret();
    const at = new Date(1234567890 * 1000);
    const step = totpStep(at);

    expect(matchTotpStep(secret, totpCode(secret, new Date(at.getTime() - 30_000)), at)).toBe(step - 1);
    expect(matchTotpStep(secret, totpCode(secret, at), at)).toBe(step);
    expect(matchTotpStep(secret, totpCode(secret, new Date(at.getTime() + 30_000)), at)).toBe(step + 1);
    expect(matchTotpStep(secret, totpCode(secret, new Date(at.getTime() + 60_000)), at)).toBeNull();
  });
});

describe('an authenticator code works once', () => {
  it('refuses a second sign-in with the same code, and remembers the step in the store', async () => {
    const { sharedKey } = await aliceWithTwoFactor();
    h.clock.advance(30_000);
    const code = codeNow(sharedKey);

    expect((await login(h, { ...alice, twoFactorCode: code })).statusCode).toBe(200);
    const replay = await login(h, { ...alice, twoFactorCode: code });

    expect(expectProblem(replay, 401).detail).toBe('Failed');
    expect((await findByEmail(h.db, alice.email))?.twoFactorLastStep).toBe(totpStep(h.clock.now()));
    expect(await auditOf('auth.login')).toContainEqual(
      expect.objectContaining({ outcome: 'failure', detail: expect.objectContaining({ cause: 'ReplayedTwoFactorCode' }) }),
    );
    // An earlier step's code, still in the window, is a replay too; the next step's is not.
    expectProblem(await login(h, { ...alice, twoFactorCode: totpCode(sharedKey, new Date(h.clock.now().getTime() - 30_000)) }), 401);
    h.clock.advance(30_000);
    expect((await login(h, { ...alice, twoFactorCode: codeNow(sharedKey) })).statusCode).toBe(200);
  });

  it('refuses the code that signed in for enabling two-factor again', async () => {
    const { sharedKey, twoFactor } = await aliceWithTwoFactor();
    h.clock.advance(30_000);
    const code = codeNow(sharedKey);
    expect((await login(h, { ...alice, twoFactorCode: code })).statusCode).toBe(200);
    expect((await twoFactor({ enable: false, currentPassword: goodPassword })).statusCode).toBe(200);

    const again = await twoFactor({ enable: true, twoFactorCode: code });

    expect(expectProblem(again, 400).errors).toEqual({
      twoFactorCode: ['This code was already used. Wait for the next code your authenticator app shows.'],
    });
    expect((await findByEmail(h.db, alice.email))?.twoFactorEnabled).toBe(false);
  });
});

describe('changing two-factor needs the password or a current code', () => {
  it.each([
    ['turning it off', { enable: false }],
    ['resetting the shared key', { resetSharedKey: true }],
    ['renewing the recovery codes', { resetRecoveryCodes: true }],
  ])('%s with only a session is refused with a 400 that says what to send', async (_name, body) => {
    const { twoFactor, sharedKey } = await aliceWithTwoFactor();

    const res = await twoFactor(body);

    const problem = expectProblem(res, 400);
    expect(problem.detail).toBe('Confirm it is you: enter your current password or a code from your authenticator app.');
    expect(Object.keys(problem.errors ?? {})).toEqual(['currentPassword']);
    const stored = await findByEmail(h.db, alice.email);
    expect([stored?.twoFactorEnabled, stored?.twoFactorSecret]).toEqual([true, sharedKey]);
    expect((await twoFactor({})).json().recoveryCodesLeft).toBe(10);
    expect(await auditOf('auth.manage.2fa')).toContainEqual(
      expect.objectContaining({ outcome: 'failure', detail: { cause: 'ReauthenticationRequired' } }),
    );
  });

  it('refuses a bearer token without the password too', async () => {
    const { sharedKey } = await aliceWithTwoFactor();
    h.clock.advance(30_000);
    const tokens = (await login(h, { ...alice, twoFactorCode: codeNow(sharedKey) })).json();

    const res = await h.app.inject({
      method: 'POST',
      url: '/auth/manage/2fa',
      payload: { enable: false },
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });

    expectProblem(res, 400);
    expect((await findByEmail(h.db, alice.email))?.twoFactorEnabled).toBe(true);
  });

  it('says so beside the field when the password is wrong, and counts it towards lockout', async () => {
    const { twoFactor } = await aliceWithTwoFactor();

    const res = await twoFactor({ enable: false, currentPassword: 'Wrong-pass-1' });

    expect(expectProblem(res, 400).errors).toEqual({ currentPassword: ['Your current password is not correct.'] });
    expect((await findByEmail(h.db, alice.email))?.twoFactorEnabled).toBe(true);
    for (let i = 0; i < 4; i++) await twoFactor({ enable: false, currentPassword: 'Wrong-pass-1' });
    // Five wrong answers from this client lock it: now even the right password is refused.
    const locked = await twoFactor({ enable: false, currentPassword: goodPassword });
    expect(expectProblem(locked, 400).detail).toBe('Too many wrong attempts. Try again in a few minutes.');
    expect((await findByEmail(h.db, alice.email))?.twoFactorEnabled).toBe(true);
  });

  it('accepts the current password, or a current code once', async () => {
    const { twoFactor, sharedKey } = await aliceWithTwoFactor();
    h.clock.advance(30_000);
    const code = codeNow(sharedKey);

    const renewed = await twoFactor({ resetRecoveryCodes: true, twoFactorCode: code });
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json().recoveryCodes).toHaveLength(10);
    // The same code cannot confirm a second change.
    expect(Object.keys(expectProblem(await twoFactor({ enable: false, twoFactorCode: code }), 400).errors ?? {})).toEqual(['twoFactorCode']);

    const off = await twoFactor({ enable: false, currentPassword: goodPassword });
    expect(off.json().isTwoFactorEnabled).toBe(false);
    expect((await login(h, alice)).statusCode).toBe(200);
  });

  it('still shows the state and enables with a code alone', async () => {
    const cookie = await cookieLogin(h, alice.email);
    const { sharedKey } = (await post(h, '/auth/manage/2fa', {}, asCookie(cookie))).json();

    const res = await post(h, '/auth/manage/2fa', { enable: true, twoFactorCode: codeNow(sharedKey) }, asCookie(cookie));

    expect(res.json().isTwoFactorEnabled).toBe(true);
  });
});

describe('password-reset codes', () => {
  const forgot = () => post(h, '/auth/forgotPassword', { email: alice.email });
  const reset = (resetCode: string, newPassword = 'Brand-new-pass-9') =>
    post(h, '/auth/resetPassword', { email: alice.email, resetCode, newPassword });
  /** Asks for a code and reads it from the newest e-mail (a second later, so "newest" is well defined). */
  async function resetCode(): Promise<string> {
    h.clock.advance(1000);
    await forgot();
    return linkIn(await lastMailTo(h.db, alice.email)).searchParams.get('code') ?? '';
  }

  it('a new code voids the earlier ones', async () => {
    const first = await resetCode();
    const second = await resetCode();

    expect(expectProblem(await reset(first), 400).errors).toHaveProperty('InvalidToken');
    expect((await reset(second)).statusCode).toBe(200);
  });

  it('a code expires after an hour', async () => {
    const code = await resetCode();
    h.clock.advance(3600_000 + 1000);

    expect(expectProblem(await reset(code), 400).errors).toHaveProperty('InvalidToken');
    expect((await lastMailTo(h.db, alice.email)).text).toContain('within an hour');
  });

  it('a code works within the hour, once', async () => {
    const code = await resetCode();
    h.clock.advance(59 * 60_000);

    expect((await reset(code)).statusCode).toBe(200);
    expect(expectProblem(await reset(code, 'Other-new-pass-8'), 400).errors).toHaveProperty('InvalidToken');
    expect((await login(h, { ...alice, password: 'Brand-new-pass-9' })).statusCode).toBe(200);
  });
});

describe('lockout', () => {
  const lockFrom = async (address: string) => {
    for (let i = 0; i < 5; i++) await loginFrom(address, { ...alice, password: `Wrong-pass-${i}` });
  };

  it('answers a locked account, an unknown account and a wrong password alike', async () => {
    await lockFrom('10.0.0.1');

    const locked = await loginFrom('10.0.0.1', alice);
    const unknown = await loginFrom('10.0.0.1', { email: 'nobody@example.com', password: goodPassword });
    const wrong = await loginFrom('10.0.0.3', { ...alice, password: 'Wrong-pass-9' });

    for (const res of [locked, unknown, wrong]) {
      expect([res.statusCode, res.headers['content-type'], res.json()]).toEqual([
        401,
        'application/problem+json; charset=utf-8',
        { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.2', title: 'Unauthorized', status: 401, detail: 'Failed', requestId: expect.any(String) },
      ]);
    }
    // The audit, for the operator, still tells them apart.
    const causes = (await auditOf('auth.login')).map((e) => e.detail?.cause);
    expect(causes.filter((c) => c === 'LockedOut')).toHaveLength(1);
    expect(causes.filter((c) => c === 'UnknownEmail')).toHaveLength(1);
  });

  it('locks the account for the client that failed only, not for others', async () => {
    await lockFrom('10.0.0.1');

    expect(expectProblem(await loginFrom('10.0.0.1', alice), 401).detail).toBe('Failed');
    expect((await loginFrom('10.0.0.2', alice)).statusCode).toBe(200);
    const rows = await h.db.selectFrom('login_failures').selectAll().execute();
    expect(rows.map((r) => [r.address, r.lockout_end !== null])).toEqual([['10.0.0.1', true]]);
  });
});

describe('admin: unlock and reset two-factor', () => {
  let admin: string;
  let aliceId: string;
  beforeEach(async () => {
    await addUser(h.db, 'root@example.com', 'admin');
    admin = await cookieLogin(h, 'root@example.com');
    aliceId = (await findByEmail(h.db, alice.email))!.id;
  });
  const adminPost = (url: string) => h.app.inject({ method: 'POST', url, headers: { cookie: admin, origin } });

  it('POST /admin/users/{id}/unlock lifts the lockout from every client, audited', async () => {
    for (const address of ['10.0.0.1', '10.0.0.2']) {
      for (let i = 0; i < 5; i++) await loginFrom(address, { ...alice, password: 'Wrong-pass-1' });
    }
    expectProblem(await loginFrom('10.0.0.1', alice), 401);

    const res = await adminPost(`/admin/users/${aliceId}/unlock`);

    expect(res.json()).toEqual({ locksLifted: 2 });
    expect((await loginFrom('10.0.0.1', alice)).statusCode).toBe(200);
    expect((await loginFrom('10.0.0.2', alice)).statusCode).toBe(200);
    expect((await auditOf('admin.users.unlock'))[0]).toMatchObject({ outcome: 'success', target: aliceId, detail: { locksLifted: 2 } });
  });

  it('the user and the users list show the lockout in force and the failed sign-ins behind it, until unlocked', async () => {
    const adminGet = async (url: string) => (await h.app.inject({ method: 'GET', url, headers: { cookie: admin } })).json();
    const lockOf = async () => {
      const one = (await adminGet(`/admin/users/${aliceId}`)) as { lockedUntil: string | null; failedSignIns: number };
      const listed = (await adminGet('/admin/users?search=alice')).items[0] as typeof one;
      expect(listed).toMatchObject({ lockedUntil: one.lockedUntil, failedSignIns: one.failedSignIns });
      return { lockedUntil: one.lockedUntil, failedSignIns: one.failedSignIns };
    };
    expect(await lockOf()).toEqual({ lockedUntil: null, failedSignIns: 0 });

    for (let i = 0; i < 2; i++) await loginFrom('10.0.0.2', { ...alice, password: 'Wrong-pass-1' });
    expect(await lockOf()).toEqual({ lockedUntil: null, failedSignIns: 2 });
    for (let i = 0; i < 5; i++) await loginFrom('10.0.0.1', { ...alice, password: 'Wrong-pass-1' });
    // Locked on the fifth, at the harness clock's 03:04:05, for 5 minutes; the other address's two still count.
    expect(await lockOf()).toEqual({ lockedUntil: '2030-01-02T03:09:05.000Z', failedSignIns: 7 });

    await h.app.inject({ method: 'POST', url: `/admin/users/${aliceId}/unlock`, headers: { cookie: admin, origin } });
    expect(await lockOf()).toEqual({ lockedUntil: null, failedSignIns: 0 });
  });

  it('a lockout that has passed is no longer shown, and the next failure counts afresh', async () => {
    for (let i = 0; i < 5; i++) await loginFrom('10.0.0.1', { ...alice, password: 'Wrong-pass-1' });
    h.clock.advance(5 * 60_000 + 1000);
    const view = async () => (await h.app.inject({ method: 'GET', url: `/admin/users/${aliceId}`, headers: { cookie: admin } })).json();
    expect(await view()).toMatchObject({ lockedUntil: null, failedSignIns: 0 });

    await loginFrom('10.0.0.1', { ...alice, password: 'Wrong-pass-1' });

    expect(await view()).toMatchObject({ lockedUntil: null, failedSignIns: 1 });
    expect((await loginFrom('10.0.0.1', alice)).statusCode).toBe(200);
  });

  it('POST /admin/users/{id}/reset-2fa turns two-factor off and drops the key and recovery codes, audited', async () => {
    const { recoveryCodes } = await aliceWithTwoFactor();

    const res = await adminPost(`/admin/users/${aliceId}/reset-2fa`);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: aliceId, twoFactorEnabled: false });
    const stored = await findByEmail(h.db, alice.email);
    expect([stored?.twoFactorEnabled, stored?.twoFactorSecret, stored?.twoFactorLastStep]).toEqual([false, null, null]);
    expect(await h.db.selectFrom('recovery_codes').selectAll().where('user_id', '=', aliceId).execute()).toEqual([]);
    expect(recoveryCodes).toHaveLength(10);
    // The password alone signs in again, until the user enrols a new authenticator.
    expect((await login(h, alice)).statusCode).toBe(200);
    expect((await auditOf('admin.users.reset-2fa'))[0]).toMatchObject({ outcome: 'success', target: aliceId, detail: { wasEnabled: true } });
  });

  it('answers 404 for an unknown user, and 403 to a regular user', async () => {
    expect(expectProblem(await adminPost('/admin/users/no-such-id/unlock'), 404).detail).toBe('No user has the id no-such-id.');
    expectProblem(await adminPost('/admin/users/no-such-id/reset-2fa'), 404);
    const regular = await cookieLogin(h, alice.email);
    const res = await h.app.inject({ method: 'POST', url: `/admin/users/${aliceId}/reset-2fa`, headers: { cookie: regular, origin } });
    expectProblem(res, 403);
    expect((await auditOf('admin.users.unlock'))[0]).toMatchObject({ outcome: 'failure', detail: { status: 404 } });
  });
});
