import { HttpTransportType, HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../server/auth/passwords';
import { listAudit } from '../../server/db/audit';
import { findById } from '../../server/db/users';
import { InProcessBus, type HubEvent } from '../../server/hub/bus';
import type { Role } from '../../contracts/roles';
import { addUser, bearerLogin, cookieLogin, expectProblem, goodPassword, login, origin, setup, type Harness } from './helpers';

let h: Harness;
let events: HubEvent[];
let admin: string;
let adminId: string;

beforeEach(async () => {
  const bus = new InProcessBus();
  events = [];
  // The users' events; the server's own host, registered as it starts, is another story (hosts.test.ts).
  bus.subscribe((event) => event.event !== 'HostChanged' && events.push(event));
  h = await setup({ bus });
  adminId = (await addUser(h.db, 'root@example.com', 'admin')).id;
  admin = await cookieLogin(h, 'root@example.com');
});
afterEach(() => h.close());

const get = (url: string, cookie = admin) => h.app.inject({ url, headers: { cookie } });
const send = (method: 'POST' | 'PUT', url: string, payload: object, cookie = admin) =>
  h.app.inject({ method, url, payload, headers: { cookie, origin } });

let passwordHash: string | undefined;
/** Inserts users straight into the store (hashing once), for lists longer than scrypt would like. */
async function seedUsers(users: { email: string; role?: Role; disabled?: boolean; createdAt?: string; lastLoginAt?: string | null }[]) {
  passwordHash ??= await hashPassword(goodPassword);
  await h.db
    .insertInto('users')
    .values(
      users.map((u) => ({
        id: randomUUID(),
        email: u.email,
        password_hash: passwordHash!,
        role: u.role ?? 'regular',
        email_confirmed: 1 as const,
        two_factor_enabled: 0 as const,
        two_factor_secret: null,
        access_failed_count: 0,
        lockout_end: null,
        disabled: u.disabled ? (1 as const) : (0 as const),
        security_stamp: randomUUID(),
        created_at: u.createdAt ?? '2030-01-01T00:00:00.000Z',
        last_login_at: u.lastLoginAt ?? null,
      })),
    )
    .execute();
}

const emails = (res: { json(): { items: { email: string }[] } }) => res.json().items.map((u) => u.email);

describe('access to /admin/users', () => {
  it('answers 401 to anonymous callers and 403 to regular users', async () => {
    await addUser(h.db, 'alice@example.com');
    const alice = await cookieLogin(h, 'alice@example.com');

    expectProblem(await h.app.inject({ url: '/admin/users' }), 401);
    expect(expectProblem(await get('/admin/users', alice), 403).detail).toBe('Only admins may do this.');
    expectProblem(await send('POST', '/admin/users', { email: 'x@example.com', password: goodPassword, role: 'admin' }, alice), 403);
    expectProblem(await send('PUT', `/admin/users/${adminId}`, { disabled: true }, alice), 403);
    expect((await findById(h.db, adminId))?.disabled).toBe(false);
  });

  it('accepts bearer tokens too', async () => {
    const authorization = await bearerLogin(h, 'root@example.com');

    expect((await h.app.inject({ url: '/admin/users', headers: { authorization } })).statusCode).toBe(200);
  });
});

describe('GET /admin/users', () => {
  it('answers a page of users without secrets', async () => {
    const res = await get('/admin/users');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        {
          id: adminId,
          email: 'root@example.com',
          role: 'admin',
          emailConfirmed: false,
          twoFactorEnabled: false,
          disabled: false,
          createdAt: expect.any(String),
          lastLoginAt: '2030-01-02T03:04:05.000Z',
          lockedUntil: null,
          failedSignIns: 0,
        },
      ],
      total: 1,
      page: 1,
      pageSize: 25,
    });
    expect(res.body).not.toMatch(/password|scrypt|stamp/i);
  });

  it('pages through users sorted by e-mail', async () => {
    await seedUsers(Array.from({ length: 30 }, (_, i) => ({ email: `user${String(i).padStart(2, '0')}@example.com` })));

    const second = await get('/admin/users?page=2&pageSize=10');

    expect(second.json()).toMatchObject({ total: 31, page: 2, pageSize: 10 });
    // root@example.com comes first, so page 2 starts at user09.
    expect(emails(second)).toEqual(Array.from({ length: 10 }, (_, i) => `user${String(i + 9).padStart(2, '0')}@example.com`));
    const last = await get('/admin/users?page=4&pageSize=10');
    expect(emails(last)).toEqual(['user29@example.com']);
    expect((await get('/admin/users?page=9&pageSize=10')).json()).toMatchObject({ items: [], total: 31, page: 9 });
  });

  it('sorts by e-mail, creation and last sign-in in either direction', async () => {
    await seedUsers([
      { email: 'b@example.com', createdAt: '2029-01-01T00:00:00.000Z', lastLoginAt: '2029-06-01T00:00:00.000Z' },
      { email: 'a@example.com', createdAt: '2029-03-01T00:00:00.000Z', lastLoginAt: null },
      { email: 'c@example.com', createdAt: '2029-02-01T00:00:00.000Z', lastLoginAt: '2029-05-01T00:00:00.000Z' },
    ]);
    const sorted = async (sort: string) => emails(await get(`/admin/users?role=regular&sort=${encodeURIComponent(sort)}`));

    expect(await sorted('email')).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(await sorted('-email')).toEqual(['c@example.com', 'b@example.com', 'a@example.com']);
    expect(await sorted('createdAt')).toEqual(['b@example.com', 'c@example.com', 'a@example.com']);
    expect(await sorted('-createdAt')).toEqual(['a@example.com', 'c@example.com', 'b@example.com']);
    // Never signed in sorts as the earliest.
    expect(await sorted('lastLoginAt')).toEqual(['a@example.com', 'c@example.com', 'b@example.com']);
    expect(await sorted('-lastLoginAt')).toEqual(['b@example.com', 'c@example.com', 'a@example.com']);
  });

  it('searches e-mails case-insensitively and literally, and filters by role and disabled', async () => {
    await seedUsers([
      { email: 'alice@ops.example.com' },
      { email: 'bob@dev.example.com', disabled: true },
      { email: 'carol_ops@example.com', role: 'admin' },
      { email: 'carolxops@example.com' },
    ]);

    expect(emails(await get('/admin/users?search=OPS'))).toEqual(['alice@ops.example.com', 'carol_ops@example.com', 'carolxops@example.com']);
    // "_" is a LIKE wildcard; the search takes it literally.
    expect(emails(await get('/admin/users?search=carol_'))).toEqual(['carol_ops@example.com']);
    expect(emails(await get('/admin/users?role=admin'))).toEqual(['carol_ops@example.com', 'root@example.com']);
    expect(emails(await get('/admin/users?disabled=true'))).toEqual(['bob@dev.example.com']);
    expect((await get('/admin/users?disabled=false')).json().total).toBe(4);
    expect(emails(await get('/admin/users?search=example&role=regular&disabled=false'))).toEqual(['alice@ops.example.com', 'carolxops@example.com']);
  });

  it('refuses an unknown sort, a page size over 200 and unknown parameters with validation problems', async () => {
    expect(expectProblem(await get('/admin/users?sort=password'), 400).errors).toEqual({
      sort: ['must be equal to one of the allowed values'],
    });
    expect(expectProblem(await get('/admin/users?pageSize=201'), 400).errors).toHaveProperty('pageSize');
    expect(expectProblem(await get('/admin/users?page=0'), 400).errors).toHaveProperty('page');
    expect(expectProblem(await get('/admin/users?role=owner'), 400).errors).toHaveProperty('role');
    expect(expectProblem(await get('/admin/users?limit=5'), 400).errors).toEqual({ limit: ['is not a known field'] });
    expect((await get('/admin/users?pageSize=200')).statusCode).toBe(200);
  });
});

describe('POST /admin/users', () => {
  it('creates a confirmed user who can sign in, answers 201 User and tells admins', async () => {
    const res = await send('POST', '/admin/users', { email: ' New.Person@Example.com ', password: goodPassword, role: 'regular' });

    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toEqual({
      id: expect.any(String),
      email: 'new.person@example.com',
      role: 'regular',
      emailConfirmed: true,
      twoFactorEnabled: false,
      disabled: false,
      createdAt: '2030-01-02T03:04:05.000Z',
      lastLoginAt: null,
      lockedUntil: null,
      failedSignIns: 0,
    });
    expect((await login(h, { email: 'new.person@example.com', password: goodPassword })).statusCode).toBe(200);
    expect(events).toContainEqual({ event: 'UserChanged', payload: { id: user.id, change: 'created' }, audience: { kind: 'admins' } });
  });

  it('creates admins too', async () => {
    const res = await send('POST', '/admin/users', { email: 'second@example.com', password: goodPassword, role: 'admin' });

    expect(res.json().role).toBe('admin');
    expect((await get(`/admin/users/${res.json().id}`)).json().role).toBe('admin');
  });

  it('answers a validation problem keyed by Identity codes for a bad e-mail and a weak password', async () => {
    const res = await send('POST', '/admin/users', { email: 'not an email', password: 'short', role: 'regular' });

    const problem = expectProblem(res, 400);
    expect(problem.title).toBe('One or more validation errors occurred.');
    expect(problem.errors).toEqual({
      InvalidEmail: ["Email 'not an email' is invalid."],
      PasswordTooShort: ['Passwords must be at least 8 characters.'],
      PasswordRequiresDigit: ["Passwords must have at least one digit ('0'-'9')."],
      PasswordRequiresUpper: ["Passwords must have at least one uppercase ('A'-'Z')."],
      PasswordRequiresNonAlphanumeric: ['Passwords must have at least one non alphanumeric character.'],
    });
    expect(events).toEqual([]);
  });

  it('answers DuplicateEmail for an e-mail taken in any case', async () => {
    const res = await send('POST', '/admin/users', { email: 'ROOT@example.com', password: goodPassword, role: 'regular' });

    expect(expectProblem(res, 400).errors).toEqual({ DuplicateEmail: ["Email 'ROOT@example.com' is already taken."] });
  });

  it('refuses unknown fields, a missing role and a non-string password', async () => {
    const base = { email: 'x@example.com', password: goodPassword, role: 'regular' };
    expect(expectProblem(await send('POST', '/admin/users', { ...base, emailConfirmed: false }), 400).errors).toEqual({
      emailConfirmed: ['is not a known field'],
    });
    expect(expectProblem(await send('POST', '/admin/users', { email: 'x@example.com', password: goodPassword }), 400).errors).toEqual({
      role: ['is required'],
    });
    expect(expectProblem(await send('POST', '/admin/users', { ...base, password: 12345678 }), 400).errors).toHaveProperty('password');
  });
});

describe('GET /admin/users/{id} and /admin/users/roles', () => {
  it('answers one user, or a 404 problem for an unknown id', async () => {
    expect((await get(`/admin/users/${adminId}`)).json()).toMatchObject({ id: adminId, email: 'root@example.com', role: 'admin' });

    expect(expectProblem(await get('/admin/users/no-such-user'), 404).detail).toBe('No user has the id no-such-user.');
  });

  it('lists the roles', async () => {
    expect((await get('/admin/users/roles')).json()).toEqual(['admin', 'regular']);
  });
});

describe('PUT /admin/users/{id}', () => {
  let aliceId: string;
  beforeEach(async () => {
    aliceId = (await addUser(h.db, 'alice@example.com')).id;
  });

  it('promotes and demotes, answering the user, and tells admins', async () => {
    const promoted = await send('PUT', `/admin/users/${aliceId}`, { role: 'admin' });

    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: aliceId, role: 'admin', disabled: false });
    expect((await send('PUT', `/admin/users/${aliceId}`, { role: 'regular' })).json().role).toBe('regular');
    expect(events.filter((e) => e.event === 'UserChanged')).toEqual([
      { event: 'UserChanged', payload: { id: aliceId, change: 'updated' }, audience: { kind: 'admins' } },
      { event: 'UserChanged', payload: { id: aliceId, change: 'updated' }, audience: { kind: 'admins' } },
    ]);
  });

  it('disabling ends every session of the user and stops sign-in; enabling lets them back in', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    const bearer = await bearerLogin(h, 'alice@example.com');

    const res = await send('PUT', `/admin/users/${aliceId}`, { disabled: true });

    expect(res.json()).toMatchObject({ id: aliceId, disabled: true });
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { authorization: bearer } }), 401);
    expect(await h.db.selectFrom('sessions').select('id').where('user_id', '=', aliceId).execute()).toEqual([]);
    expect(expectProblem(await login(h, { email: 'alice@example.com', password: goodPassword }), 401).detail).toBe('NotAllowed');

    expect((await send('PUT', `/admin/users/${aliceId}`, { disabled: false })).json().disabled).toBe(false);
    expect((await login(h, { email: 'alice@example.com', password: goodPassword })).statusCode).toBe(200);
  });

  it('refuses to demote the last enabled admin with a 409 that says why, and records the refusal', async () => {
    const res = await send('PUT', `/admin/users/${adminId}`, { role: 'regular' });

    expect(expectProblem(res, 409).detail).toBe(
      'root@example.com is the last enabled admin and cannot be demoted: make another user an admin first.',
    );
    expect((await findById(h.db, adminId))?.role).toBe('admin');
    expect(events).toEqual([]);
    const [entry] = await listAudit(h.db, 1);
    expect(entry).toMatchObject({
      userId: adminId,
      action: 'admin.users.update',
      target: adminId,
      outcome: 'failure',
      detail: { role: 'regular', status: 409, reason: expect.stringContaining('last enabled admin') },
    });
  });

  it('does not count disabled admins as a remaining admin', async () => {
    const other = await addUser(h.db, 'other-admin@example.com', 'admin');
    expect((await send('PUT', `/admin/users/${other.id}`, { disabled: true })).statusCode).toBe(200);

    expectProblem(await send('PUT', `/admin/users/${adminId}`, { role: 'regular' }), 409);

    // Once the other admin is enabled again, this one may step down.
    await send('PUT', `/admin/users/${other.id}`, { disabled: false });
    expect((await send('PUT', `/admin/users/${adminId}`, { role: 'regular' })).json().role).toBe('regular');
  });

  it('refuses to let an admin disable their own account', async () => {
    await addUser(h.db, 'second@example.com', 'admin');

    const res = await send('PUT', `/admin/users/${adminId}`, { disabled: true });

    expect(expectProblem(res, 409).detail).toBe('You cannot disable your own account; another admin has to.');
    expect((await get('/auth/me')).statusCode).toBe(200);
  });

  it('answers 404 for an unknown user and refuses unknown fields', async () => {
    expectProblem(await send('PUT', '/admin/users/nobody', { role: 'admin' }), 404);
    expect(expectProblem(await send('PUT', `/admin/users/${aliceId}`, { email: 'x@example.com' }), 400).errors).toEqual({
      email: ['is not a known field'],
    });
  });
});

describe('POST /admin/users/change-password', () => {
  let aliceId: string;
  beforeEach(async () => {
    aliceId = (await addUser(h.db, 'alice@example.com')).id;
  });

  it('sets the password, ends every session of the user and answers how many', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    await bearerLogin(h, 'alice@example.com');

    const res = await send('POST', '/admin/users/change-password', { userId: aliceId, newPassword: 'Another-Pass-8' });

    expect(res.statusCode).toBe(200);
    // One cookie session, and an access and a refresh token.
    expect(res.json()).toEqual({ sessionsEnded: 3 });
    expectProblem(await h.app.inject({ url: '/auth/me', headers: { cookie } }), 401);
    expectProblem(await login(h, { email: 'alice@example.com', password: goodPassword }), 401);
    expect((await login(h, { email: 'alice@example.com', password: 'Another-Pass-8' })).statusCode).toBe(200);
    expect(events).toContainEqual({ event: 'UserChanged', payload: { id: aliceId, change: 'updated' }, audience: { kind: 'admins' } });
  });

  it('changes the security stamp so outstanding e-mailed codes stop working', async () => {
    const before = await findById(h.db, aliceId);

    await send('POST', '/admin/users/change-password', { userId: aliceId, newPassword: 'Another-Pass-8' });

    expect((await findById(h.db, aliceId))?.securityStamp).not.toBe(before?.securityStamp);
  });

  it('refuses a weak password with Identity codes, and an unknown user with 404', async () => {
    const weak = await send('POST', '/admin/users/change-password', { userId: aliceId, newPassword: 'alllowercase' });
    expect(Object.keys(expectProblem(weak, 400).errors ?? {})).toEqual([
      'PasswordRequiresDigit',
      'PasswordRequiresUpper',
      'PasswordRequiresNonAlphanumeric',
    ]);
    expect((await login(h, { email: 'alice@example.com', password: goodPassword })).statusCode).toBe(200);

    expectProblem(await send('POST', '/admin/users/change-password', { userId: 'nobody', newPassword: 'Another-Pass-8' }), 404);
  });
});

describe('live connections of a user who loses access', () => {
  const opened: HubConnection[] = [];
  let baseUrl: string;
  beforeEach(async () => {
    await addUser(h.db, 'alice@example.com');
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.stop().catch(() => undefined)));
  });

  async function connect(email: string) {
    const connection = new HubConnectionBuilder()
      .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: await cookieLogin(h, email), Origin: origin } })
      .configureLogging(LogLevel.None)
      .build();
    opened.push(connection);
    const closed = new Promise<Error | undefined>((resolve) => connection.onclose(resolve));
    await connection.start();
    return { connection, closed };
  }

  it('closes them with the reason when the account is disabled', async () => {
    const { connection, closed } = await connect('alice@example.com');
    const aliceId = (await get('/admin/users?search=alice')).json().items[0].id;

    await send('PUT', `/admin/users/${aliceId}`, { disabled: true });

    expect((await closed)?.message).toMatch(/Your account was disabled\./);
    expect(connection.state).toBe(HubConnectionState.Disconnected);
  });

  it('closes them with the reason when an admin changes the password', async () => {
    const { connection, closed } = await connect('alice@example.com');
    const aliceId = (await get('/admin/users?search=alice')).json().items[0].id;

    await send('POST', '/admin/users/change-password', { userId: aliceId, newPassword: 'Another-Pass-8' });

    expect((await closed)?.message).toMatch(/Your password was changed\./);
    expect(connection.state).toBe(HubConnectionState.Disconnected);
  });

  it('closes them when the role changes, so admin-only events stop at once', async () => {
    await addUser(h.db, 'second@example.com', 'admin');
    const { closed } = await connect('second@example.com');
    const other = await connect('root@example.com');
    const secondId = (await get('/admin/users?search=second')).json().items[0].id;

    await send('PUT', `/admin/users/${secondId}`, { role: 'regular' });

    expect((await closed)?.message).toMatch(/Your role was changed\./);
    // Other users' connections stay.
    expect(other.connection.state).toBe(HubConnectionState.Connected);
  });
});
