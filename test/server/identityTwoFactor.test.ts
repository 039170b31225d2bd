import { totpCode } from '../../server/auth/totp';
import { listAudit } from '../../server/db/audit';
import { addUser, cookieLogin, expectProblem, goodPassword, login, setup, type Harness } from './helpers';
import { asCookie, post } from './identityHelpers';

let h: Harness;
let cookie: string;
beforeEach(async () => {
  h = await setup();
  await addUser(h.db, 'alice@example.com');
  cookie = await cookieLogin(h, 'alice@example.com');
});
afterEach(() => h.close());

const alice = { email: 'alice@example.com', password: goodPassword };
const twoFactor = (body: Record<string, unknown>) => post(h, '/auth/manage/2fa', body, asCookie(cookie));
const codeAt = (sharedKey: string, offsetSteps: number) => totpCode(sharedKey, new Date(h.clock.now().getTime() + offsetSteps * 30_000));

/** Turns two-factor sign-in on and answers the shared key and the recovery codes shown. */
async function enable() {
  const { sharedKey } = (await twoFactor({})).json();
  const res = await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, 0) });
  expect(res.statusCode).toBe(200);
  return { sharedKey: sharedKey as string, recoveryCodes: res.json().recoveryCodes as string[] };
}

describe('POST /auth/manage/2fa', () => {
  it('answers the state with a new base32 shared key, the same one on every call, without storing caches', async () => {
    const first = await twoFactor({});

    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.json()).toEqual({
      sharedKey: expect.stringMatching(/^[A-Z2-7]{32}$/),
      recoveryCodesLeft: 0,
      isTwoFactorEnabled: false,
      isMachineRemembered: false,
    });
    expect((await twoFactor({})).json().sharedKey).toBe(first.json().sharedKey);
    expectProblem(await h.app.inject({ method: 'POST', url: '/auth/manage/2fa', payload: {} }), 401);
  });

  it('enables with a code from the shared key and shows ten recovery codes once', async () => {
    const { sharedKey } = (await twoFactor({})).json();

    const res = await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, 0) });

    const body = res.json();
    expect(body).toMatchObject({ sharedKey, isTwoFactorEnabled: true, isMachineRemembered: false, recoveryCodesLeft: 10 });
    expect(body.recoveryCodes).toHaveLength(10);
    expect(new Set(body.recoveryCodes).size).toBe(10);
    for (const code of body.recoveryCodes) expect(code).toMatch(/^[2-9A-Z]{5}-[2-9A-Z]{5}$/);
    const later = (await twoFactor({})).json();
    expect(later).toEqual({ sharedKey, recoveryCodesLeft: 10, isTwoFactorEnabled: true, isMachineRemembered: false });
    expect((await h.app.inject({ url: '/auth/me', headers: { cookie } })).json().twoFactorEnabled).toBe(true);
    const audit = await listAudit(h.db);
    expect(audit.find((e) => e.action === 'auth.manage.2fa')?.detail).toEqual({ changes: ['enabled', 'recoveryCodesCreated'] });
    expect(JSON.stringify(audit)).not.toContain(body.recoveryCodes[0]);
    expect(JSON.stringify(audit)).not.toContain(sharedKey);
  });

  it.each([-1, 1])('accepts a code one step off (%i)', async (offset) => {
    const { sharedKey } = (await twoFactor({})).json();

    expect((await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, offset) })).statusCode).toBe(200);
  });

  it.each([-2, 2])('refuses a code two steps off (%i) with errors on twoFactorCode', async (offset) => {
    const { sharedKey } = (await twoFactor({})).json();

    const res = await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, offset) });

    expect(Object.keys(expectProblem(res, 400).errors ?? {})).toEqual(['twoFactorCode']);
    expect((await twoFactor({})).json().isTwoFactorEnabled).toBe(false);
  });

  it('asks for a code to enable, and refuses enabling while resetting the key', async () => {
    expect(Object.keys(expectProblem(await twoFactor({ enable: true }), 400).errors ?? {})).toEqual(['twoFactorCode']);
    const { sharedKey } = (await twoFactor({})).json();
    const both = await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, 0), resetSharedKey: true });
    expect(Object.keys(expectProblem(both, 400).errors ?? {})).toEqual(['resetSharedKey']);
  });

  it('disables with enable:false, keeping the key and the recovery codes', async () => {
    const { sharedKey } = await enable();

    const res = await twoFactor({ enable: false, currentPassword: goodPassword });

    expect(res.json()).toEqual({ sharedKey, recoveryCodesLeft: 10, isTwoFactorEnabled: false, isMachineRemembered: false });
    expect((await login(h, alice)).statusCode).toBe(200);
  });

  it('resetSharedKey makes a new key and disables two-factor sign-in until it is verified', async () => {
    const { sharedKey } = await enable();

    const res = await twoFactor({ resetSharedKey: true, currentPassword: goodPassword });

    expect(res.json().sharedKey).not.toBe(sharedKey);
    expect(res.json().isTwoFactorEnabled).toBe(false);
    // The old key no longer enables it; the new one does, and recovery codes are not renewed.
    expectProblem(await twoFactor({ enable: true, twoFactorCode: codeAt(sharedKey, 0) }), 400);
    const enabled = await twoFactor({ enable: true, twoFactorCode: codeAt(res.json().sharedKey, 0) });
    expect(enabled.json()).toMatchObject({ isTwoFactorEnabled: true, recoveryCodesLeft: 10 });
    expect(enabled.json().recoveryCodes).toBeUndefined();
  });

  it('resetRecoveryCodes replaces every code, old ones stop working', async () => {
    const { recoveryCodes: old } = await enable();

    const res = await twoFactor({ resetRecoveryCodes: true, currentPassword: goodPassword });

    const fresh: string[] = res.json().recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.some((code) => old.includes(code))).toBe(false);
    expect(expectProblem(await login(h, { ...alice, twoFactorRecoveryCode: old[0] }), 401).detail).toBe('Failed');
    expect((await login(h, { ...alice, twoFactorRecoveryCode: fresh[0] })).statusCode).toBe(200);
  });

  it('forgetMachine answers isMachineRemembered false: Warden remembers no machine', async () => {
    await enable();

    expect((await twoFactor({ forgetMachine: true })).json().isMachineRemembered).toBe(false);
  });

  it('rejects unknown fields', async () => {
    expect(expectProblem(await twoFactor({ enabled: true }), 400).errors).toEqual({ enabled: ['is not a known field'] });
  });
});

describe('signing in with two-factor', () => {
  it('asks for the second factor, then accepts the authenticator code', async () => {
    const { sharedKey } = await enable();

    expect(expectProblem(await login(h, alice), 401).detail).toBe('RequiresTwoFactor');
    // The code that enabled it is used up; the next one the app shows signs in.
    h.clock.advance(30_000);
    expect((await login(h, { ...alice, twoFactorCode: codeAt(sharedKey, 0) })).statusCode).toBe(200);
  });

  it('accepts a recovery code once, in any case and spacing, and counts it down', async () => {
    const { recoveryCodes } = await enable();
    const typed = ` ${recoveryCodes[3].toLowerCase().replace('-', ' ')} `;

    expect((await login(h, { ...alice, twoFactorRecoveryCode: typed })).statusCode).toBe(200);
    expect(expectProblem(await login(h, { ...alice, twoFactorRecoveryCode: recoveryCodes[3] }), 401).detail).toBe('Failed');

    expect((await twoFactor({})).json().recoveryCodesLeft).toBe(9);
    const audit = (await listAudit(h.db)).filter((e) => e.action === 'auth.login' && e.outcome === 'success');
    expect(audit.some((e) => JSON.stringify(e.detail) === '{"secondFactor":"recoveryCode"}')).toBe(true);
  });

  it('does not accept another user’s recovery code', async () => {
    const { recoveryCodes } = await enable();
    await addUser(h.db, 'bob@example.com');
    const bobCookie = await cookieLogin(h, 'bob@example.com');
    const { sharedKey } = (await post(h, '/auth/manage/2fa', {}, asCookie(bobCookie))).json();
    await post(h, '/auth/manage/2fa', { enable: true, twoFactorCode: codeAt(sharedKey, 0) }, asCookie(bobCookie));

    const res = await login(h, { email: 'bob@example.com', password: goodPassword, twoFactorRecoveryCode: recoveryCodes[0] });

    expect(expectProblem(res, 401).detail).toBe('Failed');
  });

  it('still locks the account after five wrong recovery codes', async () => {
    const { recoveryCodes } = await enable();
    const details: string[] = [];
    for (let i = 0; i < 5; i++) details.push((await login(h, { ...alice, twoFactorRecoveryCode: 'AAAAA-AAAAA' })).json().detail);

    expect(details).toEqual(['Failed', 'Failed', 'Failed', 'Failed', 'Failed']);
    expect(expectProblem(await login(h, { ...alice, twoFactorRecoveryCode: recoveryCodes[0] }), 401).detail).toBe('Failed');
    // Refused while locked out, so the code was not used up.
    h.clock.advance(5 * 60_000 + 1000);
    expect((await login(h, { ...alice, twoFactorRecoveryCode: recoveryCodes[0] })).statusCode).toBe(200);
  });
});
