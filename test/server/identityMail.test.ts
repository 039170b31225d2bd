import { addUser, cookieLogin, expectProblem, setup, type Harness } from './helpers';
import { eventually, fakeSmtpServer, mails, post } from './identityHelpers';

let h: Harness;
afterEach(() => h.close());

const forgot = (email: string) => post(h, '/auth/forgotPassword', { email });

describe('GET /admin/outbox', () => {
  let admin: string;
  beforeEach(async () => {
    h = await setup();
    await addUser(h.db, 'root@example.com', 'admin');
    await addUser(h.db, 'alice@example.com');
    await addUser(h.db, 'bob@example.com');
    admin = await cookieLogin(h, 'root@example.com');
  });
  const outbox = (query = '', cookie = admin) => h.app.inject({ url: `/admin/outbox${query}`, headers: { cookie } });

  it('pages every e-mail written, newest first, unsent when there is no SMTP server', async () => {
    await forgot('alice@example.com');
    h.clock.advance(1000);
    await forgot('bob@example.com');

    const res = await outbox();

    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 2, page: 1, pageSize: 25 });
    expect(page.items).toEqual([
      {
        id: expect.any(String),
        at: '2030-01-02T03:04:06.000Z',
        to: 'bob@example.com',
        subject: 'Reset your Warden password',
        text: expect.stringContaining('/reset-password?email=bob%40example.com&code='),
        sent: false,
        error: null,
      },
      expect.objectContaining({ to: 'alice@example.com', at: '2030-01-02T03:04:05.000Z' }),
    ]);
    expect((await outbox('?pageSize=1&page=2')).json()).toMatchObject({ total: 2, page: 2, pageSize: 1, items: [{ to: 'alice@example.com' }] });
    expect((await outbox('?sort=at')).json().items.map((m: { to: string }) => m.to)).toEqual(['alice@example.com', 'bob@example.com']);
    expect((await outbox('?search=BOB')).json()).toMatchObject({ total: 1, items: [{ to: 'bob@example.com' }] });
  });

  it('is for admins only and checks its query', async () => {
    expectProblem(await outbox('', await cookieLogin(h, 'alice@example.com')), 403);
    expectProblem(await h.app.inject({ url: '/admin/outbox' }), 401);
    expect(Object.keys(expectProblem(await outbox('?sort=subject'), 400).errors ?? {})).toEqual(['sort']);
    expect(Object.keys(expectProblem(await outbox('?pageSize=500'), 400).errors ?? {})).toEqual(['pageSize']);
  });
});

describe('delivery over SMTP', () => {
  let smtp: Awaited<ReturnType<typeof fakeSmtpServer>> | undefined;
  afterEach(async () => {
    await h.close();
    await smtp?.close();
    smtp = undefined;
  });

  it('sends through WARDEN_SMTP_URL and records the message as sent', async () => {
    smtp = await fakeSmtpServer();
    h = await setup({ config: { smtpUrl: smtp.url, mailFrom: 'Warden <warden@example.com>' } });
    await addUser(h.db, 'alice@example.com');

    expect((await forgot('alice@example.com')).statusCode).toBe(200);

    await eventually(async () => (await mails(h.db))[0]?.sent === true);
    expect(await mails(h.db)).toEqual([expect.objectContaining({ to: 'alice@example.com', sent: true, error: null })]);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toMatch(/^From: Warden <warden@example\.com>$/m);
    expect(smtp.messages[0]).toMatch(/^To: alice@example\.com$/m);
    expect(smtp.messages[0]).toMatch(/^Subject: Reset your Warden password$/m);
  });

  it('records the error of an unreachable SMTP server without failing the request', async () => {
    h = await setup({ config: { smtpUrl: 'smtp://127.0.0.1:1' } });
    await addUser(h.db, 'alice@example.com');

    const res = await forgot('alice@example.com');

    expect(res.statusCode).toBe(200);
    await eventually(async () => (await mails(h.db))[0]?.error !== null);
    const [mail] = await mails(h.db);
    expect(mail).toMatchObject({ to: 'alice@example.com', sent: false, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('answers before a slow SMTP server does, and closing the app waits for the delivery', async () => {
    smtp = await fakeSmtpServer({ greetingDelayMs: 1000 });
    h = await setup({ config: { smtpUrl: smtp.url } });
    await addUser(h.db, 'alice@example.com');

    expect((await forgot('alice@example.com')).statusCode).toBe(200);
    // Answered while the server has not even greeted yet.
    expect((await mails(h.db))[0]).toMatchObject({ sent: false, error: null });

    await h.app.close();

    expect((await mails(h.db))[0].sent).toBe(true);
  });
});
