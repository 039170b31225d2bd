import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Statistics } from '../../contracts/statistics';
import { addMembers, createGroup } from '../../server/db/groups';
import { InProcessBus } from '../../server/hub/bus';
import type { HubPrincipal } from '../../server/hub/hub';
import { StatisticsPublisher } from '../../server/statistics/publisher';
import { addUser, cookieLogin, origin, setup, type Harness } from './helpers';
import { inertEngine } from './instances/inertEngine';

// GET /api/statistics counts only the caller's scope, and StatisticsChanged carries each receiver
// its own figures, only when they changed: a create in one group reaches that group's members and
// admins, never the members of another group.

const principals = ['admin', 'member1', 'member2', 'outsider'] as const;
type Who = (typeof principals)[number];
const ids = {} as Record<Who, string>;
const cookies = {} as Record<Who, string>;
const listeners = {} as Record<Who, { connection: HubConnection; received: Statistics[] }>;
const bus = new InProcessBus();
let h: Harness;
let dataDir: string;
let group1: string;
let group2: string;
let publisher: StatisticsPublisher;
const connected = (): HubPrincipal[] => principals.map((who) => ({ userId: ids[who], role: who === 'admin' ? 'admin' : 'regular', sessionId: who }));

const statisticsOf = async (who: Who, query = '') => h.app.inject({ method: 'GET', url: `/api/statistics${query}`, headers: { cookie: cookies[who] } });

async function create(who: Who, name: string, groupId: string) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/instances',
    headers: { cookie: cookies[who], origin, 'content-type': 'application/json' },
    payload: { name, type: name.startsWith('kv') ? 'etcd' : 'pg', groupId },
  });
  expect(res.statusCode).toBe(202);
  await h.app.instances.idle();
}

/** A hello through the hub to every listener and back, so every earlier frame has arrived. */
async function settle() {
  await Promise.all(principals.map((who) => listeners[who].connection.invoke('JoinInstances')));
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-statistics-'));
  // The engine user must be able to pass through the data dir (mkdtemp makes it 0700).
  fs.chmodSync(dataDir, 0o711);
  h = await setup({ config: { dataDir }, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') }, supervise: false, bus });
  for (const who of principals) ids[who] = (await addUser(h.db, `${who}@example.com`, who === 'admin' ? 'admin' : 'regular')).id;
  group1 = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  group2 = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, group1, [ids.member1], h.clock.now());
  await addMembers(h.db, group2, [ids.member2], h.clock.now());
  const baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  for (const who of principals) {
    cookies[who] = await cookieLogin(h, `${who}@example.com`);
    const connection = new HubConnectionBuilder()
      .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookies[who], Origin: origin } })
      .configureLogging(LogLevel.None)
      .build();
    const received: Statistics[] = [];
    connection.on('StatisticsChanged', (payload: Statistics) => received.push(payload));
    await connection.start();
    listeners[who] = { connection, received };
  }
  await create('admin', 'orders', group1);
  await create('admin', 'kv-orders', group1);
  await create('admin', 'catalog', group2);
  // kv-orders stands for an etcd cluster of three members: the two after the first keep their ports here.
  await h.db.updateTable('instances').set({ member_ports: JSON.stringify([{ port: 1, peerPort: 2 }, { port: 3, peerPort: 4 }]) }).where('name', '=', 'kv-orders').execute();
  // Driven by hand: its timer (the one-second debounce) never fires within the test.
  publisher = new StatisticsPublisher({ db: h.db, bus, clock: h.clock.now, connected, log: { warn: () => undefined }, intervalMs: 3_600_000 });
  publisher.start();
});
afterAll(async () => {
  await publisher?.close();
  await Promise.all(principals.map((who) => listeners[who]?.connection.stop().catch(() => undefined)));
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /api/statistics', () => {
  it("counts each caller's scope: admins everything, members their groups, outsiders nothing", async () => {
    const [admin, member1, member2, outsider] = await Promise.all(principals.map(async (who) => (await statisticsOf(who)).json() as Statistics));
    expect(admin.instances.total).toBe(3);
    expect(admin.instances.byType).toEqual({ pg: 2, etcd: 1 });
    expect(admin.instances).toMatchObject({ clusters: 1, members: 5 });
    expect(admin.groups).toBe(2);
    expect(admin.users).toBe(4);
    expect(member1.instances.total).toBe(2);
    expect(member1.instances.byType).toEqual({ pg: 1, etcd: 1 });
    expect(member1.groups).toBe(1);
    expect(member1.users).toBe(1);
    expect(member2.instances.total).toBe(1);
    expect(member2.instances.byType).toEqual({ pg: 1, etcd: 0 });
    expect(member2.instances).toMatchObject({ clusters: 0, members: 1 });
    expect(outsider.instances.total).toBe(0);
    expect(outsider).toMatchObject({ groups: 0, users: 0, backups: { total: 0, failed24h: 0, storageBytes: 0, lastSucceededAt: null }, logs: { entries: 0, errors24h: 0 } });
    // Every status, type and health level is present, zero or not.
    expect(Object.keys(outsider.instances.byStatus).sort()).toEqual(['offline', 'running', 'stopped', 'unInitialized', 'unknown']);
    expect(Object.keys(outsider.instances.byHealth).sort()).toEqual(['error', 'good', 'warn']);
  });

  it("narrows to one group with groupId, and answers 404 for a group the caller is not in", async () => {
    const narrowed = (await statisticsOf('admin', `?groupId=${group2}`)).json() as Statistics;
    expect(narrowed.instances.total).toBe(1);
    expect((await statisticsOf('member1', `?groupId=${group1}`)).json()).toMatchObject({ instances: { total: 2 } });
    expect((await statisticsOf('member1', `?groupId=${group2}`)).statusCode).toBe(404);
    expect((await statisticsOf('admin', '?groupId=no-such-group')).statusCode).toBe(404);
    expect((await statisticsOf('member1', '?groupId=')).statusCode).toBe(400);
    expect((await statisticsOf('member1', '?other=1')).statusCode).toBe(400);
  });
});

describe('StatisticsChanged', () => {
  const counts = () => Object.fromEntries(principals.map((who) => [who, listeners[who].received.length]));
  const clear = () => principals.forEach((who) => (listeners[who].received.length = 0));

  it('pushes nothing while nothing changed', async () => {
    // A first round takes in whatever the setup's creations still published (their log entries
    // are written and announced after the creations answer; later on a slower store).
    await publisher.publishChanges();
    await settle();
    clear();
    await publisher.publishChanges();
    await publisher.publishChanges();
    await settle();
    expect(counts()).toEqual({ admin: 0, member1: 0, member2: 0, outsider: 0 });
  });

  it("pushes a burst of creates once, to the group's members and admins only, with each receiver's figures", async () => {
    clear();
    await create('member1', 'ledger', group1);
    await create('member1', 'invoices', group1);
    await publisher.publishChanges();
    await settle();
    expect(counts()).toEqual({ admin: 1, member1: 1, member2: 0, outsider: 0 });
    expect(listeners.member1.received[0].instances.total).toBe(4);
    expect(listeners.admin.received[0].instances.total).toBe(5);
    // The receiver's figures are what GET answers it.
    const { generatedAt: _pushedAt, ...pushed } = listeners.member1.received[0];
    const { generatedAt: _readAt, ...read } = (await statisticsOf('member1')).json() as Statistics;
    expect(pushed).toEqual(read);
  });

  it('does not push again until something changes', async () => {
    clear();
    await publisher.publishChanges();
    await settle();
    expect(counts()).toEqual({ admin: 0, member1: 0, member2: 0, outsider: 0 });
  });

  it('pushes on its own timer after a change, still to the members only', async () => {
    await publisher.close();
    publisher = new StatisticsPublisher({ db: h.db, bus, clock: h.clock.now, connected, log: { warn: () => undefined }, intervalMs: 100 });
    publisher.start();
    // Its first round learns every connected scope's figures without pushing them (they were just read).
    await publisher.publishChanges();
    clear();
    await create('member2', 'search-index', group2);
    for (let i = 0; i < 250 && listeners.member2.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    expect(listeners.member2.received.at(-1)?.instances.total).toBe(2);
    expect(listeners.member1.received).toEqual([]);
    expect(listeners.outsider.received).toEqual([]);
  });
});
