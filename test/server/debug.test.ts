import fs from 'node:fs';
import path from 'node:path';
import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { DebugMessagePayload } from '../../contracts/hub';
import { addUser, bearerLogin, cookieLogin, expectProblem, origin, setup, type Harness } from './helpers';

const packageVersion: string = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')).version;

let h: Harness;
let adminCookie: string;
const opened: HubConnection[] = [];

async function start(config: Parameters<typeof setup>[0] = {}) {
  h = await setup(config);
  await addUser(h.db, 'root@example.com', 'admin');
  await addUser(h.db, 'alice@example.com');
  adminCookie = await cookieLogin(h, 'root@example.com');
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.stop()));
  await h.close();
});

function postDebug(body: unknown, headers: Record<string, string> = { cookie: adminCookie, origin }) {
  return h.app.inject({ method: 'POST', url: '/debug', headers, payload: body as object });
}

/** A connected official client on a listening app, recording the DebugMessages it hears. */
async function connect(baseUrl: string, cookie: string) {
  const connection = new HubConnectionBuilder()
    .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
    .configureLogging(LogLevel.None)
    .build();
  opened.push(connection);
  const messages: DebugMessagePayload[] = [];
  connection.on('DebugMessage', (payload: DebugMessagePayload) => messages.push(payload));
  await connection.start();
  return { connection, messages };
}

async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 3000) {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const broadcast = (text: string, to: 'me' | 'all') => ({ action: 'broadcast', event: 'DebugMessage', payload: { text }, to });

describe('POST /debug as an admin', () => {
  beforeEach(() => start());

  it('answers ping with pong and the server time from the clock', async () => {
    const res = await postDebug({ action: 'ping' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ pong: true, serverTime: '2030-01-02T03:04:05.000Z' });
    h.clock.advance(60_000);
    expect((await postDebug({ action: 'ping' })).json().serverTime).toBe('2030-01-02T03:05:05.000Z');
  });

  it('answers info with the version, Node, store and the installed engines', async () => {
    const res = await postDebug({ action: 'info' });

    expect(res.statusCode).toBe(200);
    const info = res.json();
    expect(info).toMatchObject({ version: packageVersion, node: process.version, store: 'sqlite', hubConnections: 0 });
    // Root with bubblewrap here (as CI installs it): engines are confined.
    if (process.getuid?.() === 0) expect(info.confinement).toEqual({ active: true, reason: null });
    // A hand-made configuration leaves archiving off, and says how it is turned on.
    expect(info.pointInTimeRecovery).toEqual({ active: false, repository: null, location: null, reason: 'WAL archiving is turned off on this server (WARDEN_PITR=off).' });
    expect(info.uptimeSeconds).toBeGreaterThanOrEqual(0);
    // This machine has Debian's postgresql 15 and etcd 3.4.
    expect(info.engines).toEqual([
      { type: 'pg', available: true, version: expect.stringMatching(/^15\.\d+/), problem: null },
      { type: 'etcd', available: true, version: expect.stringMatching(/^3\.4\.\d+/), problem: null },
    ]);
  });

  it('takes a bearer token without an Origin header', async () => {
    const authorization = await bearerLogin(h, 'root@example.com');

    expect((await postDebug({ action: 'ping' }, { authorization })).statusCode).toBe(200);
  });
});

describe('POST /debug info with engines missing', () => {
  beforeEach(() =>
    start({ config: { engines: { pgBinDir: '/nonexistent/pg/bin', etcdBin: '/nonexistent/etcd', etcdctlBin: '/nonexistent/etcdctl' } } }),
  );

  it('reports each engine unavailable and names the Debian package to install', async () => {
    const [pg, etcd] = (await postDebug({ action: 'info' })).json().engines;

    expect(pg).toEqual({ type: 'pg', available: false, version: null, problem: expect.stringContaining('/nonexistent/pg/bin') });
    expect(pg.problem).toMatch(/Debian package postgresql\b/);
    expect(etcd).toEqual({ type: 'etcd', available: false, version: null, problem: expect.stringContaining('/nonexistent/etcd') });
    expect(etcd.problem).toMatch(/Debian package etcd-server\b/);
  });
});

describe('POST /debug with live hub clients', () => {
  let baseUrl: string;
  beforeEach(async () => {
    await start();
    baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });

  it('counts connected hub clients in info', async () => {
    const client = await connect(baseUrl, await cookieLogin(h, 'alice@example.com'));
    expect((await postDebug({ action: 'info' })).json().hubConnections).toBe(1);

    await connect(baseUrl, adminCookie);
    expect((await postDebug({ action: 'info' })).json().hubConnections).toBe(2);

    // The server notices the close a moment after stop() resolves.
    await client.connection.stop();
    await waitFor(async () => (await postDebug({ action: 'info' })).json().hubConnections === 1);
  });

  it('broadcasts a DebugMessage to everybody signed in', async () => {
    const admin = await connect(baseUrl, adminCookie);
    const alice = await connect(baseUrl, await cookieLogin(h, 'alice@example.com'));

    const res = await postDebug(broadcast('hello everyone', 'all'));

    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ delivered: 'queued', to: 'all' });
    const expected = { text: 'hello everyone', from: 'root@example.com', sentAt: '2030-01-02T03:04:05.000Z' };
    await waitFor(() => admin.messages.length > 0 && alice.messages.length > 0);
    expect(admin.messages).toEqual([expected]);
    expect(alice.messages).toEqual([expected]);
  });

  it("broadcasts to 'me' only on the sender's own connections", async () => {
    const adminTab1 = await connect(baseUrl, adminCookie);
    const adminTab2 = await connect(baseUrl, await cookieLogin(h, 'root@example.com'));
    const alice = await connect(baseUrl, await cookieLogin(h, 'alice@example.com'));

    expect((await postDebug(broadcast('just me', 'me'))).json()).toEqual({ delivered: 'queued', to: 'me' });
    // Events reach a connection in order: once alice hears the next one, she has missed the first for good.
    await postDebug(broadcast('now everyone', 'all'));

    await waitFor(() => adminTab1.messages.length === 2 && adminTab2.messages.length === 2 && alice.messages.length === 1);
    expect(adminTab1.messages.map((m) => m.text)).toEqual(['just me', 'now everyone']);
    expect(adminTab2.messages.map((m) => m.text)).toEqual(['just me', 'now everyone']);
    expect(alice.messages.map((m) => m.text)).toEqual(['now everyone']);
  });
});

describe('POST /debug refusals', () => {
  beforeEach(() => start());

  it('answers 403 to a regular user', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');

    expectProblem(await postDebug({ action: 'ping' }, { cookie, origin }), 403);
  });

  it('answers 401 to an anonymous caller', async () => {
    expectProblem(await postDebug({ action: 'ping' }, { origin }), 401);
  });

  it('answers 403 to a cookie-authenticated call without an allowed Origin', async () => {
    expectProblem(await postDebug({ action: 'ping' }, { cookie: adminCookie }), 403);
    expectProblem(await postDebug({ action: 'ping' }, { cookie: adminCookie, origin: 'https://evil.example' }), 403);
  });

  const badBodies: [string, unknown, string, string][] = [
    ['an unknown action', { action: 'explode' }, 'action', 'must be equal to constant'],
    ['a broadcast without text', { ...broadcast('hi', 'all'), payload: {} }, 'payload.text', 'is required'],
    ['an extra field', { action: 'ping', extra: 1 }, 'extra', 'is not a known field'],
    ['a text over 500 characters', broadcast('x'.repeat(501), 'all'), 'payload.text', 'must NOT have more than 500 characters'],
    ['a wrong event name', { ...broadcast('hi', 'all'), event: 'InstanceDeleted' }, 'event', 'must be equal to constant'],
    ['a wrong audience', { ...broadcast('hi', 'all'), to: 'everyone' }, 'to', 'must be equal to constant'],
    ['a broadcast without an audience', { action: 'broadcast', event: 'DebugMessage', payload: { text: 'hi' } }, 'to', 'A broadcast needs to.'],
  ];
  it.each(badBodies)('answers 400 naming only the wrong field for %s', async (_name, body, field, message) => {
    const problem = expectProblem(await postDebug(body), 400);

    expect(Object.keys(problem.errors ?? {})).toEqual([field]);
    expect(problem.errors?.[field]).toContain(message);
  });

  it('accepts a text of exactly 500 characters', async () => {
    expect((await postDebug(broadcast('x'.repeat(500), 'all'))).statusCode).toBe(202);
  });
});
