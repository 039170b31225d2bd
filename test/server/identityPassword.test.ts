import { listAudit } from '../../server/db/audit';
import { findByEmail } from '../../server/db/users';
import { addUser, bearerLogin, cookieLogin, expectProblem, goodPassword, login, origin, setup, type Harness } from './helpers';
import { asCookie, confirmWith, hubConnection, lastMailTo, linkIn, mails, post, sleep } from './identityHelpers';

let h: Harness;
beforeEach(async () => {
  h = await setup();
  await addUser(h.db, 'alice@example.com');
});
afterEach(() => h.close());

const newPassword = 'Brand-new-pass-9';
const forgot = (email: string) => post(h, '/auth/forgotPassword', { email });
const reset = (body: Record<string, unknown>) => post(h, '/auth/resetPassword', body);

async function resetCode(email = 'alice@example.com'): Promise<string> {
  await forgot(email);
  return linkIn(await lastMailTo(h.db, email)).searchParams.get('code') ?? '';
}

describe('POST /auth/forgotPassword', () => {
  it('answers known and unknown addresses alike and mails only the known one a link to the reset page', async () => {
    const known = await forgot('Alice@Example.com');
    const unknown = await forgot('nobody@example.com');

    expect(known.statusCode).toBe(200);
    expect([unknown.statusCode, unknown.body, unknown.headers['content-type']]).toEqual([
      known.statusCode,
      known.body,
      known.headers['content-type'],
    ]);
    const sent = await mails(h.db);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([['alice@example.com', 'Reset your Warden password']]);
    const link = linkIn(sent[0]);
    expect(`${link.origin}${link.pathname}`).toBe(`${origin}/reset-password`);
    expect(link.searchParams.get('email')).toBe('alice@example.com');
    expect(sent[0].text).toContain(link.searchParams.get('code'));
  });

  it('mails nobody for a disabled account', async () => {
    const bob = await addUser(h.db, 'bob@example.com');
    await h.db.updateTable('users').set({ disabled: 1 }).where('id', '=', bob.id).execute();

    expect((await forgot('bob@example.com')).statusCode).toBe(200);

    expect(await mails(h.db)).toEqual([]);
  });
});

describe('POST /auth/resetPassword', () => {
  it('sets the new password with the mailed code, once, and confirms the address', async () => {
    const code = await resetCode();

    const res = await reset({ email: 'alice@example.com', resetCode: code, newPassword });

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect((await login(h, { email: 'alice@example.com', password: newPassword })).statusCode).toBe(200);
    expectProblem(await login(h, { email: 'alice@example.com', password: goodPassword }), 401);
    expect((await findByEmail(h.db, 'alice@example.com'))?.emailConfirmed).toBe(true);

    const again = await reset({ email: 'alice@example.com', resetCode: code, newPassword: 'Another-pass-1' });
    expect(expectProblem(again, 400).errors).toEqual({ InvalidToken: ['Invalid token.'] });
  });

  it('refuses a code after 24 hours', async () => {
    const code = await resetCode();
    h.clock.advance(25 * 3600_000);

    const res = await reset({ email: 'alice@example.com', resetCode: code, newPassword });

    expect(expectProblem(res, 400).errors).toEqual({ InvalidToken: ['Invalid token.'] });
    expect((await login(h, { email: 'alice@example.com', password: goodPassword })).statusCode).toBe(200);
  });

  it('answers InvalidToken alike for a wrong code, an unknown address and another account’s code', async () => {
    const code = await resetCode();
    await addUser(h.db, 'bob@example.com');

    for (const body of [
      { email: 'alice@example.com', resetCode: 'wrong', newPassword },
      { email: 'nobody@example.com', resetCode: code, newPassword },
      { email: 'bob@example.com', resetCode: code, newPassword },
    ]) {
      expect(expectProblem(await reset(body), 400).errors).toEqual({ InvalidToken: ['Invalid token.'] });
    }
  });

  it('answers the broken password rules by code and keeps the code usable', async () => {
    const code = await resetCode();

    const weak = await reset({ email: 'alice@example.com', resetCode: code, newPassword: 'weakpass' });

    expect(Object.keys(expectProblem(weak, 400).errors ?? {})).toEqual([
      'PasswordRequiresDigit',
      'PasswordRequiresUpper',
      'PasswordRequiresNonAlphanumeric',
    ]);
    expect((await reset({ email: 'alice@example.com', resetCode: code, newPassword })).statusCode).toBe(200);
  });

  it('stops working once the password changed another way (security stamp)', async () => {
    const code = await resetCode();
    const cookie = await cookieLogin(h, 'alice@example.com');
    await post(h, '/auth/manage/info', { oldPassword: goodPassword, newPassword }, asCookie(cookie));

    const res = await reset({ email: 'alice@example.com', resetCode: code, newPassword: 'Another-pass-1' });

    expect(expectProblem(res, 400).errors).toEqual({ InvalidToken: ['Invalid token.'] });
  });

  it('ends every session and hub connection of the account and lifts a lockout', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    const authorization = await bearerLogin(h, 'alice@example.com');
    const baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const hub = await hubConnection(baseUrl, cookie);
    for (let i = 0; i < 5; i++) await login(h, { email: 'alice@example.com', password: 'Wrong-pass-1' });
    // Locked: even the right password is refused, with the same answer as a wrong one.
    expect((await login(h, { email: 'alice@example.com', password: goodPassword })).json().detail).toBe('Failed');

    await reset({ email: 'alice@example.com', resetCode: await resetCode(), newPassword });

    await hub.closed;
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { authorization } }), 401);
    expect((await login(h, { email: 'alice@example.com', password: newPassword })).statusCode).toBe(200);
    const audit = (await listAudit(h.db)).find((e) => e.action === 'auth.resetPassword');
    expect(audit).toMatchObject({ outcome: 'success', detail: { sessionsEnded: 3 } });
    expect(JSON.stringify(await listAudit(h.db))).not.toContain(newPassword);
  });
});

describe('GET and POST /auth/manage/info', () => {
  let cookie: string;
  beforeEach(async () => {
    cookie = await cookieLogin(h, 'alice@example.com');
  });
  const update = (body: Record<string, unknown>, session = cookie) => post(h, '/auth/manage/info', body, asCookie(session));

  it('answers the address and whether it is confirmed, and 401 without a session', async () => {
    const res = await h.app.inject({ url: '/auth/manage/info', headers: { cookie } });

    expect(res.json()).toEqual({ email: 'alice@example.com', isEmailConfirmed: false });
    expectProblem(await h.app.inject({ url: '/auth/manage/info' }), 401);
    expect((await update({})).json()).toEqual({ email: 'alice@example.com', isEmailConfirmed: false });
  });

  it('changes the password with the right old one, ends the other sessions and keeps this one', async () => {
    const other = await cookieLogin(h, 'alice@example.com');
    const authorization = await bearerLogin(h, 'alice@example.com');
    const baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const otherHub = await hubConnection(baseUrl, other);
    const ownHub = await hubConnection(baseUrl, cookie);

    const res = await update({ oldPassword: goodPassword, newPassword });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: 'alice@example.com', isEmailConfirmed: false });
    await otherHub.closed;
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie: other } }), 401);
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { authorization } }), 401);
    expect((await h.app.inject({ url: '/auth/me', headers: { cookie } })).statusCode).toBe(200);
    await sleep(100);
    expect(ownHub.isClosed()).toBe(false);
    ownHub.socket.terminate();
    expect((await login(h, { email: 'alice@example.com', password: newPassword })).statusCode).toBe(200);
  });

  it('keeps a bearer caller’s own refresh token working after a password change', async () => {
    const tokens = (await login(h, { email: 'alice@example.com', password: goodPassword })).json();

    await post(h, '/auth/manage/info', { oldPassword: goodPassword, newPassword }, { authorization: `Bearer ${tokens.accessToken}` });

    expect((await post(h, '/auth/refresh', { refreshToken: tokens.refreshToken })).statusCode).toBe(200);
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
  });

  it('answers PasswordMismatch for a wrong old password, OldPasswordRequired without one, and the rules', async () => {
    expect(expectProblem(await update({ oldPassword: 'Wrong-pass-1', newPassword }), 400).errors).toEqual({
      PasswordMismatch: ['Incorrect password.'],
    });
    expect(Object.keys(expectProblem(await update({ newPassword }), 400).errors ?? {})).toEqual(['OldPasswordRequired']);
    expect(Object.keys(expectProblem(await update({ oldPassword: goodPassword, newPassword: 'short' }), 400).errors ?? {})).toEqual([
      'PasswordTooShort',
      'PasswordRequiresDigit',
      'PasswordRequiresUpper',
      'PasswordRequiresNonAlphanumeric',
    ]);
    // Nothing changed.
    expect((await login(h, { email: 'alice@example.com', password: goodPassword })).statusCode).toBe(200);
  });

  it('changes the address only when the link mailed to the new address is used', async () => {
    const res = await update({ newEmail: 'Alice.New@Example.com' });

    expect(res.json()).toEqual({ email: 'alice@example.com', isEmailConfirmed: false });
    const mail = await lastMailTo(h.db, 'alice.new@example.com');
    expect(mail.subject).toBe('Confirm your new e-mail address for Warden');
    const link = linkIn(mail);
    expect(link.pathname).toBe('/confirm-email');
    expect(link.searchParams.get('changedEmail')).toBe('alice.new@example.com');

    expect((await confirmWith(h, link)).statusCode).toBe(200);

    const info = await h.app.inject({ url: '/auth/manage/info', headers: { cookie } });
    expect(info.json()).toEqual({ email: 'alice.new@example.com', isEmailConfirmed: true });
    expect((await login(h, { email: 'alice.new@example.com', password: goodPassword })).statusCode).toBe(200);
    expectProblem(await confirmWith(h, link), 401);
  });

  it('refuses a change link whose changedEmail was altered', async () => {
    await update({ newEmail: 'alice.new@example.com' });
    const link = linkIn(await lastMailTo(h.db, 'alice.new@example.com'));
    link.searchParams.set('changedEmail', 'mallory@example.com');

    expectProblem(await confirmWith(h, link), 401);
    expect((await findByEmail(h.db, 'alice@example.com'))?.email).toBe('alice@example.com');
  });

  it('answers DuplicateEmail for a taken address and InvalidEmail for a malformed one, mailing nobody', async () => {
    await addUser(h.db, 'bob@example.com');

    expect(expectProblem(await update({ newEmail: 'BOB@example.com' }), 400).errors).toEqual({
      DuplicateEmail: ["Email 'BOB@example.com' is already taken."],
    });
    expect(Object.keys(expectProblem(await update({ newEmail: 'bob at example' }), 400).errors ?? {})).toEqual(['InvalidEmail']);
    expect(await mails(h.db)).toEqual([]);
  });

  it('refuses the change at confirmation when the address was taken meanwhile', async () => {
    await update({ newEmail: 'carol@example.com' });
    const link = linkIn(await lastMailTo(h.db, 'carol@example.com'));
    await addUser(h.db, 'carol@example.com');

    expectProblem(await confirmWith(h, link), 401);
    expect((await findByEmail(h.db, 'alice@example.com'))?.email).toBe('alice@example.com');
  });

  it('refuses a cookie change without an allowed Origin', async () => {
    expectProblem(await post(h, '/auth/manage/info', { oldPassword: goodPassword, newPassword }, { cookie }), 403);
  });
});
