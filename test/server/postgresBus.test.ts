import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { buildApp, type App } from '../../server/app';
import { openPostgresStore } from '../../server/db/postgresStore';
import type { Db } from '../../server/db/schema';
import { PostgresBus } from '../../server/hub/postgresBus';
import { addUser, cookieLogin, origin, testConfig } from './helpers';
import { startStoreServer, type StoreServer } from './storeServer';

// Two servers on one PostgreSQL store deliver each other's events: what one publishes reaches a
// browser connected to the other, in the order published, scoped as on one server; an event too
// large for a notification goes by reference; a listener that loses the store listens again.

let server: StoreServer;
let url: string;
const stores: Db[] = [];
const apps: App[] = [];
const connections: HubConnection[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

/** A Warden server on the shared store, listening; its bus is the PostgreSQL one, as WARDEN_DATABASE_URL gives it. */
async function startServer() {
  const db = openPostgresStore(url);
  stores.push(db);
  const app = buildApp(testConfig({ databaseUrl: url }), { db, logger: false, supervise: false });
  apps.push(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base };
}

async function browser(base: string, cookie: string, events: string[]) {
  const connection = new HubConnectionBuilder()
    .withUrl(`${base}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
    .configureLogging(LogLevel.None)
    .build();
  connections.push(connection);
  const received: unknown[] = [];
  for (const event of events) connection.on(event, (payload) => received.push(payload));
  await connection.start();
  return { connection, received };
}

let a: Awaited<ReturnType<typeof startServer>>;
let b: Awaited<ReturnType<typeof startServer>>;
let busA: PostgresBus;
let busB: PostgresBus;

beforeAll(async () => {
  server = await startStoreServer();
  url = await server.createDatabase('shared');
  a = await startServer();
  b = await startServer();
  await addUser(stores[0], 'alice@example.com');
  await addUser(stores[0], 'root@example.com', 'admin');
  // Publishers as a third and fourth server would be: their events reach both apps' hubs through the store.
  busA = new PostgresBus({ url, db: stores[0] });
  busB = new PostgresBus({ url, db: stores[1] });
  await Promise.all([busA.started(), busB.started()]);
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((c) => c.stop().catch(() => undefined)));
  await busA?.close();
  await busB?.close();
  for (const app of apps) await app.close();
  for (const db of stores) await db.destroy();
  server?.stop();
});

const harness = (app: App, db: Db) => ({ app, db, clock: undefined as never, close: async () => undefined });

describe('events between two servers on one PostgreSQL store', () => {
  it('reach a browser on the other server, in the order published, and on the publishing server too', async () => {
    const onA = await browser(a.base, await cookieLogin(harness(a.app, stores[0]), 'alice@example.com'), ['DebugMessage']);
    const onB = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'alice@example.com'), ['DebugMessage']);
    for (let n = 1; n <= 100; n++) (n % 2 ? busA : busB).publish({ event: 'DebugMessage', payload: { n }, audience: { kind: 'all' } });
    await until(() => onA.received.length >= 100 && onB.received.length >= 100);
    const expected = Array.from({ length: 100 }, (_, i) => ({ n: i + 1 }));
    // One order for all: each bus sends in its order, and the store interleaves them the same for every listener.
    expect(onA.received).toEqual(onB.received);
    const fromA = (list: unknown[]) => (list as { n: number }[]).filter((p) => p.n % 2 === 1);
    expect(fromA(onA.received)).toEqual(expected.filter((p) => p.n % 2 === 1));
    expect(onA.received).toHaveLength(100);
  });

  it('carry what a request to one server changed to an admin’s browser on the other, and to nobody outside', async () => {
    const rootOnA = await cookieLogin(harness(a.app, stores[0]), 'root@example.com');
    const adminOnB = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'root@example.com'), ['GroupChanged']);
    const aliceOnB = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'alice@example.com'), ['GroupChanged']);
    await adminOnB.connection.invoke('JoinGroups');
    await aliceOnB.connection.invoke('JoinGroups');
    const res = await a.app.inject({ method: 'POST', url: '/groups', headers: { cookie: rootOnA, origin }, payload: { name: 'payments' } });
    expect(res.statusCode).toBe(201);
    await until(() => adminOnB.received.length >= 1);
    await sleep(200);
    expect(adminOnB.received).toEqual([{ id: res.json().id, change: 'created' }]);
    // Alice is no member of the new group: the other server keeps it from her as this one would.
    expect(aliceOnB.received).toEqual([]);
  });

  it('close a disabled user’s connections on the other server too, with the reason', async () => {
    await addUser(stores[0], 'carol@example.com');
    const carolOnB = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'carol@example.com'), []);
    const closed = new Promise<string | undefined>((resolve) => carolOnB.connection.onclose((error) => resolve(error?.message)));
    const rootOnA = await cookieLogin(harness(a.app, stores[0]), 'root@example.com');
    const carol = await stores[0].selectFrom('users').select('id').where('email', '=', 'carol@example.com').executeTakeFirstOrThrow();
    const res = await a.app.inject({ method: 'PUT', url: `/admin/users/${carol.id}`, headers: { cookie: rootOnA, origin }, payload: { disabled: true } });
    expect(res.statusCode).toBe(200);
    await expect(closed).resolves.toMatch(/Your account was disabled\./);
  });

  it('are scoped on the other server as on one: an admins-only event reaches no regular user', async () => {
    const regular = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'alice@example.com'), ['DebugMessage']);
    const admin = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'root@example.com'), ['DebugMessage']);
    busA.publish({ event: 'DebugMessage', payload: { to: 'admins' }, audience: { kind: 'admins' } });
    busA.publish({ event: 'DebugMessage', payload: { to: 'all' }, audience: { kind: 'all' } });
    await until(() => admin.received.length >= 2 && regular.received.length >= 1);
    await sleep(200);
    expect(admin.received).toEqual([{ to: 'admins' }, { to: 'all' }]);
    expect(regular.received).toEqual([{ to: 'all' }]);
  });

  it('carries an event larger than a notification by reference, whole', async () => {
    const onB = await browser(b.base, await cookieLogin(harness(b.app, stores[1]), 'alice@example.com'), ['DebugMessage']);
    const text = 'x'.repeat(20_000);
    busA.publish({ event: 'DebugMessage', payload: { text }, audience: { kind: 'all' } });
    busA.publish({ event: 'DebugMessage', payload: { text: 'small, after' }, audience: { kind: 'all' } });
    await until(() => onB.received.length >= 2);
    const texts = (onB.received as { text: string }[]).map((p) => (p.text === text ? 'the large one, whole' : p.text));
    expect(texts).toEqual(['the large one, whole', 'small, after']);
    expect(Number((await stores[0].selectFrom('hub_payloads').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(1);
  });

  it('flow again after the store restarts: the listener connects and listens again by itself', async () => {
    const onA = await browser(a.base, await cookieLogin(harness(a.app, stores[0]), 'alice@example.com'), ['DebugMessage']);
    server.halt();
    await sleep(500);
    server.resume();
    // The listeners notice the lost connection and listen again within a few seconds; events
    // published meanwhile are delivered on their own server only, and never throw.
    await until(
      () => {
        busB.publish({ event: 'DebugMessage', payload: { probe: true }, audience: { kind: 'all' } });
        return onA.received.length > 0;
      },
      15_000,
    ).catch(() => undefined);
    onA.received.length = 0;
    busB.publish({ event: 'DebugMessage', payload: { after: 'restart' }, audience: { kind: 'all' } });
    await until(() => onA.received.some((p) => (p as { after?: string }).after === 'restart'));
  }, 30_000);
});
