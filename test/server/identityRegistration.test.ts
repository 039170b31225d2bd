import { listAudit } from '../../server/db/audit';
import { findByEmail } from '../../server/db/users';
import { addUser, cookieLogin, expectProblem, goodPassword, origin, setup, type Harness } from './helpers';
import { confirmWith, lastMailTo, linkIn, mails, post } from './identityHelpers';

let h: Harness;
afterEach(() => h.close());

const register = (body: Record<string, unknown>) => post(h, '/auth/register', body);

describe('POST /auth/register', () => {
  it('answers 403 while registration is closed (the default) and creates nobody', async () => {
    h = await setup();

    const res = await register({ email: 'new@example.com', password: goodPassword });

    expect(expectProblem(res, 403).detail).toBe('Registration is closed: ask an admin for an account.');
    expect(await findByEmail(h.db, 'new@example.com')).toBeUndefined();
    expect(await mails(h.db)).toEqual([]);
  });

  describe('when open', () => {
    beforeEach(async () => {
      h = await setup({ config: { allowRegistration: true } });
    });

    it('creates a regular user with an unconfirmed address, answers an empty 200 and mails a confirmation link', async () => {
      const res = await register({ email: 'New@Example.com', password: goodPassword });

      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      const user = await findByEmail(h.db, 'new@example.com');
      expect(user).toMatchObject({ email: 'new@example.com', role: 'regular', emailConfirmed: false, disabled: false });

      const mail = await lastMailTo(h.db, 'new@example.com');
      expect(mail).toMatchObject({ subject: 'Confirm your e-mail address for Warden', sent: false, error: null });
      const link = linkIn(mail);
      expect(`${link.origin}${link.pathname}`).toBe(`${origin}/confirm-email`);
      expect(link.searchParams.get('userId')).toBe(user?.id);
      expect(link.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
      expect(link.searchParams.has('changedEmail')).toBe(false);

      // The new account can sign in before confirming, as with Identity's defaults.
      const me = await h.app.inject({ url: '/auth/me', headers: { cookie: await cookieLogin(h, 'new@example.com') } });
      expect(me.json()).toMatchObject({ role: 'regular', emailConfirmed: false });
    });

    it('answers 400 keyed by Identity error codes, every problem at once, with readable messages', async () => {
      const res = await register({ email: 'not an address', password: 'short' });

      const problem = expectProblem(res, 400);
      expect(problem.title).toBe('One or more validation errors occurred.');
      expect(problem.errors).toEqual({
        InvalidEmail: ["Email 'not an address' is invalid."],
        PasswordTooShort: ['Passwords must be at least 8 characters.'],
        PasswordRequiresDigit: ["Passwords must have at least one digit ('0'-'9')."],
        PasswordRequiresUpper: ["Passwords must have at least one uppercase ('A'-'Z')."],
        PasswordRequiresNonAlphanumeric: ['Passwords must have at least one non alphanumeric character.'],
      });
      expect(expectProblem(await register({ email: 'a@example.com', password: 'ALLUPPER-123' }), 400).errors).toEqual({
        PasswordRequiresLower: ["Passwords must have at least one lowercase ('a'-'z')."],
      });
      expect(await mails(h.db)).toEqual([]);
    });

    it('answers DuplicateEmail for a taken address, whatever its case', async () => {
      await addUser(h.db, 'taken@example.com');

      const res = await register({ email: 'TAKEN@example.com', password: goodPassword });

      expect(expectProblem(res, 400).errors).toEqual({ DuplicateEmail: ["Email 'TAKEN@example.com' is already taken."] });
    });

    it('rejects unknown fields and missing ones by schema', async () => {
      const problem = expectProblem(await register({ email: 'x@example.com', password: goodPassword, role: 'admin' }), 400);
      expect(problem.errors).toEqual({ role: ['is not a known field'] });
      expect(expectProblem(await register({ email: 'x@example.com' }), 400).errors).toEqual({ password: ['is required'] });
    });

    it('audits successes and failures without the password', async () => {
      await register({ email: 'new@example.com', password: goodPassword });
      await register({ email: 'new@example.com', password: goodPassword });

      const entries = (await listAudit(h.db)).filter((e) => e.action === 'auth.register');
      expect(entries.map((e) => [e.target, e.outcome])).toEqual(
        expect.arrayContaining([
          ['new@example.com', 'success'],
          ['new@example.com', 'failure'],
        ]),
      );
      expect(JSON.stringify(entries)).not.toContain(goodPassword);
    });
  });
});

describe('GET /auth/confirmEmail', () => {
  beforeEach(async () => {
    h = await setup({ config: { allowRegistration: true } });
    await register({ email: 'new@example.com', password: goodPassword });
  });

  it('confirms the address once with the mailed code and answers Identity’s text', async () => {
    const link = linkIn(await lastMailTo(h.db, 'new@example.com'));

    const res = await confirmWith(h, link);

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('Thank you for confirming your email.');
    expect((await findByEmail(h.db, 'new@example.com'))?.emailConfirmed).toBe(true);
    expect((await listAudit(h.db)).some((e) => e.action === 'auth.confirmEmail' && e.outcome === 'success')).toBe(true);

    // Single use.
    expect(expectProblem(await confirmWith(h, link), 401).detail).toBe(
      'The confirmation link is not valid, was already used or has expired.',
    );
  });

  it('answers the same sentence as a JSON string to a caller accepting only JSON (the console)', async () => {
    const link = linkIn(await lastMailTo(h.db, 'new@example.com'));

    const res = await h.app.inject({ url: `/auth/confirmEmail${link.search}`, headers: { accept: 'application/json' } });

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toBe('Thank you for confirming your email.');
  });

  it('refuses an expired code after 24 hours', async () => {
    const link = linkIn(await lastMailTo(h.db, 'new@example.com'));
    h.clock.advance(25 * 3600_000);

    expectProblem(await confirmWith(h, link), 401);
    expect((await findByEmail(h.db, 'new@example.com'))?.emailConfirmed).toBe(false);
  });

  it('refuses a wrong code, an unknown user and another user’s code', async () => {
    const link = linkIn(await lastMailTo(h.db, 'new@example.com'));
    const userId = link.searchParams.get('userId') ?? '';
    const code = link.searchParams.get('code') ?? '';
    await register({ email: 'other@example.com', password: goodPassword });
    const otherId = linkIn(await lastMailTo(h.db, 'other@example.com')).searchParams.get('userId') ?? '';

    expectProblem(await h.app.inject({ url: `/auth/confirmEmail?userId=${userId}&code=${code}x` }), 401);
    expectProblem(await h.app.inject({ url: `/auth/confirmEmail?userId=nobody&code=${code}` }), 401);
    expectProblem(await h.app.inject({ url: `/auth/confirmEmail?userId=${otherId}&code=${code}` }), 401);
    // A confirmation code is not an address-change code.
    expectProblem(await h.app.inject({ url: `/auth/confirmEmail?userId=${userId}&code=${code}&changedEmail=x@example.com` }), 401);
    // …and still works after those attempts.
    expect((await confirmWith(h, link)).statusCode).toBe(200);
  });

  it('answers 400 when the query is incomplete', async () => {
    expect(expectProblem(await h.app.inject({ url: '/auth/confirmEmail?userId=x' }), 400).errors).toEqual({ code: ['is required'] });
  });
});

describe('POST /auth/resendConfirmationEmail', () => {
  beforeEach(async () => {
    h = await setup({ config: { allowRegistration: true } });
    await register({ email: 'new@example.com', password: goodPassword });
  });
  const resend = (email: string) => post(h, '/auth/resendConfirmationEmail', { email });

  it('answers known and unknown addresses alike, and mails only the known unconfirmed one', async () => {
    const known = await resend('NEW@example.com');
    const unknown = await resend('nobody@example.com');

    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    expect(unknown.body).toBe('');
    expect(unknown.headers['content-type']).toBe(known.headers['content-type']);
    expect((await mails(h.db)).map((m) => m.to)).toEqual(['new@example.com', 'new@example.com']);
  });

  it('sends a fresh working code, and nothing once the address is confirmed', async () => {
    await resend('new@example.com');
    expect((await confirmWith(h, linkIn(await lastMailTo(h.db, 'new@example.com')))).statusCode).toBe(200);

    await resend('new@example.com');

    expect(await mails(h.db)).toHaveLength(2);
  });
});
