import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostChangedPayload, HostList } from '../../contracts/hosts';
import type { Instance } from '../../contracts/instances';
import { buildApp, type App } from '../../server/app';
import type { Config } from '../../server/config';
import { findInstanceRow } from '../../server/db/instances';
import { openDb } from '../../server/db/open';
import type { Db } from '../../server/db/schema';
import { claimNext, enqueue } from '../../server/hosts/hostQueue';
import { placeOn } from '../../server/hosts/hostStore';
import { InProcessBus, type HubEvent } from '../../server/hub/bus';
import { addUser, cookieLogin, expectProblem, fakeClock, origin, testConfig } from './helpers';
import { inertEngine } from './instances/inertEngine';
import { closeTestDb, openTestDb } from './testStore';

// Hosts and their agents on one store: an API server (WARDEN_ROLE=server) that runs no engine, and
// an agent (WARDEN_ROLE=agent) that registers its host, runs what is queued for it and heartbeats.
// Engines are inert here; test/server/scaleOut.test.ts runs real servers, agents and engines.

const heartbeatMs = 600_000; // The timer never fires within a test: heartbeats are driven by hand.
let db: Db;
const clock = fakeClock();
const bus = new InProcessBus();
const events: HubEvent[] = [];
let server: App;
let agent: App | null = null;
let admin: string;
let member: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-hosts-'));
fs.chmodSync(dataDir, 0o711);

function appFor(overrides: Partial<Config>): App {
  const config = testConfig({ heartbeatMs, ...overrides });
  return buildApp(config, { db, bus, clock: clock.now, logger: false, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') } });
}

async function startAgent(): Promise<App> {
  const started = appFor({ role: 'agent', hostName: 'host-2', hostAddress: '10.0.0.2', dataDir: path.join(dataDir, 'host-2'), instancePorts: { from: 17000, to: 17009 } });
  fs.mkdirSync(path.join(dataDir, 'host-2'), { recursive: true, mode: 0o711 });
  // Listening: servers forward to it the calls that need its instances' files.
  await started.listen({ host: '127.0.0.1', port: 0 });
  return started;
}

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, cookie = admin) =>
  server.inject({ method, url, headers: { cookie, origin }, ...(body !== undefined && { payload: body as object }) });

async function instance(id: string): Promise<Instance> {
  return (await call('GET', `/instances/${id}`)).json<Instance>();
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const hosts = async () => (await call('GET', '/hosts')).json<HostList>();

beforeAll(async () => {
  db = await openTestDb();
  bus.subscribe((event) => events.push(event));
  server = appFor({ role: 'server', dataDir: path.join(dataDir, 'server') });
  await server.ready();
  await addUser(db, 'admin@example.com', 'admin');
  await addUser(db, 'member@example.com', 'regular');
  admin = await cookieLogin({ app: server, db, clock, close: async () => undefined }, 'admin@example.com');
  member = await cookieLogin({ app: server, db, clock, close: async () => undefined }, 'member@example.com');
  agent = await startAgent();
});

afterAll(async () => {
  await agent?.close();
  await server.close();
  await closeTestDb(db);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('hosts', () => {
  test('an agent registers its host with its capacity; admins list it, others may not', async () => {
    const list = await hosts();
    expect(list.heartbeatMs).toBe(heartbeatMs);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      name: 'host-2',
      address: '10.0.0.2',
      state: 'online',
      draining: false,
      cores: os.cpus().length,
      memoryBytes: os.totalmem(),
      ports: { from: 17000, to: 17009 },
      freePorts: 10,
      instanceCount: 0,
      lostAt: null,
    });
    expect(list.items[0].diskFreeBytes).toBeGreaterThan(0);
    expect(events.some((e) => e.event === 'HostChanged' && (e.payload as HostChangedPayload).change === 'registered')).toBe(true);
    expectProblem(await call('GET', '/hosts', undefined, member), 403);
  });

  test('an agent answers its health and the calls servers forward, nothing else: people reach the servers', async () => {
    expect((await agent!.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expectProblem(await agent!.inject({ method: 'GET', url: '/hosts', headers: { cookie: admin } }), 404);
    expectProblem(await agent!.inject({ method: 'GET', url: '/hosts', headers: { cookie: admin, 'x-warden-forwarded': 'guessed' } }), 404);
    const host = (await hosts()).items[0];
    const row = await db.selectFrom('hosts').select('api_url').where('id', '=', host.id).executeTakeFirstOrThrow();
    expect(row.api_url).toBe(`http://127.0.0.1:${(agent!.server.address() as { port: number }).port}`);
  });

  test('an instance created through the server is placed on the agent\'s host, made there, and operated through the queue', async () => {
    const created = await call('POST', '/instances', { name: 'placed', type: 'pg' });
    expect(created.statusCode).toBe(202);
    const body = created.json<Instance>();
    const host = (await hosts()).items[0];
    expect(body).toMatchObject({ hostId: host.id, host: '10.0.0.2', status: 'unInitialized', operation: { kind: 'create' } });
    expect(body.port).toBeGreaterThanOrEqual(17000);
    expect(body.port).toBeLessThanOrEqual(17009);
    await until('the create to finish', async () => (await instance(body.id)).status === 'running' && (await instance(body.id)).operation === null);
    expect(events.some((e) => e.event === 'OperationCompleted' && (e.payload as { instanceId: string; ok: boolean }).instanceId === body.id && (e.payload as { ok: boolean }).ok)).toBe(true);

    const stopped = await call('POST', `/instances/${body.id}/stop`, {});
    expect(stopped.statusCode).toBe(202);
    expect(stopped.json<Instance>()).toMatchObject({ operation: { kind: 'stop' }, desiredState: 'stopped' });
    // One operation at a time holds across servers: the second is refused while the first waits.
    expectProblem(await call('POST', `/instances/${body.id}/start`, {}), 409);
    await until('the stop', async () => (await instance(body.id)).status === 'stopped' && (await instance(body.id)).operation === null);
    // The agent takes the operation off the queue once it has run: just after the instance says so.
    await until('the queue to empty', async () => (await db.selectFrom('host_operations').selectAll().execute()).length === 0);

    // An operation the agent refuses (a reload needs a running instance) ends visibly, as a failure.
    expect((await call('POST', `/instances/${body.id}/reload-configuration`, {})).statusCode).toBe(202);
    await until('the refused reload to end', async () => events.find((e) => e.event === 'OperationCompleted' && (e.payload as { kind: string }).kind === 'reload'));
    const reload = events.find((e) => e.event === 'OperationCompleted' && (e.payload as { kind: string }).kind === 'reload')!.payload as { ok: boolean; error: string };
    expect(reload).toMatchObject({ ok: false, error: expect.stringContaining('only a running instance reloads') });
    expect((await instance(body.id)).operation).toBeNull();

    // What needs the instance's files is forwarded to the agent, which answers it as a server would.
    const config = await call('GET', `/instances/${body.id}/config`);
    expect(config.statusCode).toBe(200);
    expect(config.json<{ parameters: { name: string }[] }>().parameters.map((p) => p.name)).toEqual(['work_mem']);
    const changed = await call('PUT', `/instances/${body.id}/config`, { parameters: { work_mem: '8MB' } });
    expect(changed.statusCode).toBe(200);
    expect((await call('GET', `/instances/${body.id}/config/revisions`)).json<{ total: number }>().total).toBe(1);
    // The agent applies its own access rules: a user outside the instance's group learns nothing there either.
    expectProblem(await call('GET', `/instances/${body.id}/config`, undefined, member), 404);
  });

  test('admins may choose the host; regular users may not, and unknown or drained hosts are refused', async () => {
    const host = (await hosts()).items[0];
    expectProblem(await call('POST', '/instances', { name: 'chosen-by-member', type: 'pg', hostId: host.id }, member), 403);
    expectProblem(await call('POST', '/instances', { name: 'nowhere', type: 'pg', hostId: 'no-such-host' }), 400);

    const drained = await call('PUT', `/hosts/${host.id}`, { draining: true });
    expect(drained.statusCode).toBe(200);
    expect(drained.json()).toMatchObject({ draining: true });
    expect(await db.selectFrom('audit_entries').select(['action', 'target']).where('action', '=', 'hosts.update').execute()).toEqual([{ action: 'hosts.update', target: host.id }]);
    const none = await call('POST', '/instances', { name: 'no-room', type: 'pg' });
    expectProblem(none, 503);
    expect(none.json<{ detail: string }>().detail).toMatch(/No host can take a new instance/);
    expectProblem(await call('POST', '/instances', { name: 'chosen-drained', type: 'pg', hostId: host.id }), 400);
    expect((await call('PUT', `/hosts/${host.id}`, { draining: false })).json()).toMatchObject({ draining: false });

    // A copy of a running instance stays on its host: only a restore from a backup may go elsewhere.
    const source = (await call('GET', '/instances?search=placed')).json<{ items: Instance[] }>().items[0];
    expectProblem(await call('POST', `/instances/${source.id}/clone`, { name: 'copy-elsewhere', hostId: host.id }), 400);

    // A cluster's members run on one host, made by that host's own process: a server places none.
    const cluster = await call('POST', '/instances', { name: 'three-members', type: 'etcd', members: 3 });
    expectProblem(cluster, 409);
    expect(cluster.json<{ detail: string }>().detail).toMatch(/A cluster runs on one host/);

    expectProblem(await call('PUT', '/hosts/no-such-host', { draining: true }), 404);
    expectProblem(await call('PUT', `/hosts/${host.id}`, { draining: 'yes' }), 400);
    expectProblem(await call('PUT', `/hosts/${host.id}`, { draining: true }, member), 403);
  });

  test('a host whose agent stops heartbeating is lost and its instances unknown; the agent back, they are its again', async () => {
    const created = (await call('POST', '/instances', { name: 'survivor', type: 'pg' })).json<Instance>();
    await until('the create', async () => (await instance(created.id)).status === 'running');
    await agent!.close();
    agent = null;

    clock.advance(3 * heartbeatMs + 1000);
    await server.hostWatch.check();
    const lost = (await hosts()).items[0];
    expect(lost).toMatchObject({ state: 'lost', lostAt: clock.now().toISOString() });
    expect(await instance(created.id)).toMatchObject({ status: 'unknown', statusReason: expect.stringContaining('Host host-2 is lost') });
    // Only one server says a host is lost, however many watch.
    await server.hostWatch.check();
    expect(events.filter((e) => e.event === 'HostChanged' && (e.payload as HostChangedPayload).change === 'lost')).toHaveLength(1);
    for (const refused of [await call('POST', `/instances/${created.id}/restart`, {}), await call('GET', `/instances/${created.id}/config`)]) {
      expectProblem(refused, 409);
      expect(refused.json<{ detail: string }>().detail).toMatch(/host-2, which is lost/);
    }

    agent = await startAgent();
    expect((await hosts()).items[0]).toMatchObject({ id: lost.id, state: 'online', lostAt: null });
    expect(events.some((e) => e.event === 'HostChanged' && (e.payload as HostChangedPayload).change === 'returned')).toBe(true);
    // The agent's reconcile probes its instances: the inert engine of the new agent runs nothing, so the instance is started again.
    await until('the instance to be known again', async () => (await instance(created.id)).status === 'running');
    expect((await findInstanceRow(db, created.id))?.host_id).toBe(lost.id);
  });

  test('an operation is taken once, however many agents of a host ask at once', async () => {
    const host = (await hosts()).items[0];
    await agent!.close();
    agent = null;
    await enqueue(db, { hostId: host.id, instanceId: 'none', kind: 'start' }, clock.now());
    const taken = await Promise.all([1, 2, 3].map((n) => claimNext(db, host.id, `agent-${n}`, clock.now())));
    expect(taken.filter(Boolean)).toHaveLength(1);
    await db.deleteFrom('host_operations').execute();
    agent = await startAgent();
  });
});

describe('an agent and the store', () => {
  test('an agent never migrates: on a store not at its version it refuses to start, saying a server must start first', async () => {
    const fresh = openDb({ dataDir: fs.mkdtempSync(path.join(dataDir, 'fresh-')) });
    try {
      const config = testConfig({ role: 'agent', hostName: 'too-early', heartbeatMs });
      const early = buildApp(config, { db: fresh, bus, clock: clock.now, logger: false, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') } });
      await expect(early.ready()).rejects.toThrow(/start a server \(WARDEN_ROLE=server or all\) of this version on it first/);
      await early.close().catch(() => undefined);
      const tables = await fresh.introspection.getTables();
      expect(tables.map((t) => t.name)).not.toContain('hosts');
    } finally {
      await fresh.destroy();
    }
  });
});

describe('a server that runs instances', () => {
  test('never finds its own host lost, however late its heartbeat looks: it is running', async () => {
    const self = appFor({ hostName: 'host-self', dataDir: path.join(dataDir, 'self') });
    fs.mkdirSync(path.join(dataDir, 'self'), { recursive: true, mode: 0o711 });
    await self.ready();
    try {
      clock.advance(4 * heartbeatMs);
      await self.hostWatch.check();
      const rows = await db.selectFrom('hosts').select(['name', 'lost_at']).where('name', 'in', ['host-self', 'host-2']).orderBy('name').execute();
      // Its own host stays online; another that stopped heartbeating is lost as ever.
      expect(rows).toEqual([
        { name: 'host-2', lost_at: clock.now().toISOString() },
        { name: 'host-self', lost_at: null },
      ]);
    } finally {
      await self.close();
    }
  });
});

describe('placement', () => {
  const host = (name: string, over: Partial<HostList['items'][number]> = {}): HostList['items'][number] => ({
    id: name, name, address: '127.0.0.1', state: 'online', draining: false, cores: 2, memoryBytes: 1, diskFreeBytes: 100,
    ports: { from: 1, to: 10 }, freePorts: 10, instanceCount: 0, agentVersion: '1', startedAt: '', lastHeartbeatAt: '', lostAt: null, ...over,
  });

  test('the host with the fewest instances per core, then the most free disk, among those that can take one', () => {
    expect(placeOn([host('a', { instanceCount: 3 }), host('b', { instanceCount: 1 })], 1)?.name).toBe('b');
    expect(placeOn([host('a', { instanceCount: 3, cores: 8 }), host('b', { instanceCount: 1 })], 1)?.name).toBe('a');
    expect(placeOn([host('a', { diskFreeBytes: 5 }), host('b', { diskFreeBytes: 50 })], 1)?.name).toBe('b');
    expect(placeOn([host('a', { state: 'lost' }), host('b', { draining: true }), host('c', { freePorts: 1 })], 2)).toBeUndefined();
  });
});
