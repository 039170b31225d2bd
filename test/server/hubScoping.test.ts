import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hubEvents } from '../../contracts/hub';
import { addMembers, createGroup } from '../../server/db/groups';
import { InProcessBus } from '../../server/hub/bus';
import { addUser, cookieLogin, origin, setup, type Harness } from './helpers';
import { inertEngine } from './instances/inertEngine';

// The hub's side of the access matrix: who receives each event about an instance of group 1.
// Two groups with a member each, an admin and a user in no group listen over the real hub, each
// joined to every hub group it may join; exactly group 1's member and the admin receive, and the
// member no longer does once removed from the group, although their connection stays open.

let h: Harness;
let bus: InProcessBus;
let baseUrl: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-hub-scoping-'));
fs.chmodSync(dataDir, 0o711);
// The inert engine makes no folders; a backup stages its files beside the instances'.
fs.mkdirSync(path.join(dataDir, 'instances'));

const principals = ['admin', 'member1', 'member2', 'outsider'] as const;
type Who = (typeof principals)[number];
const ids = {} as Record<Who, string>;
const cookies = {} as Record<Who, string>;
let group1: string;
let instanceId: string;

interface Received {
  event: string;
  payload: Record<string, unknown>;
}
const listeners = {} as Record<Who, { connection: HubConnection; received: Received[] }>;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
async function call(who: Who, method: Method, url: string, payload?: object) {
  const body = payload ?? (method === 'POST' ? {} : undefined);
  const res = await h.app.inject({ method, url, headers: { origin, cookie: cookies[who] }, ...(body && { payload: body }) });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

async function listen(who: Who) {
  const connection = new HubConnectionBuilder()
    .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookies[who], Origin: origin } })
    .configureLogging(LogLevel.None)
    .build();
  const received: Received[] = [];
  for (const event of hubEvents) connection.on(event, (payload: Record<string, unknown>) => received.push({ event, payload }));
  await connection.start();
  listeners[who] = { connection, received };
}

/** Joins every hub group a listener may join; a refused one (Forbidden) is simply not joined. */
async function joinAll(who: Who, calls: [string, ...unknown[]][]) {
  for (const [method, ...args] of calls) await listeners[who].connection.invoke(method, ...args).catch(() => undefined);
}

/** Which instance or group an event is about. */
function subject({ event, payload }: Received): string | undefined {
  const instance = payload.instance as { id: string } | undefined;
  const backup = payload.backup as { instanceId: string } | undefined;
  if (instance) return instance.id;
  if (backup) return backup.instanceId;
  if (event === 'InstanceStatusChanged' || event === 'InstanceDeleted' || event === 'GroupChanged') return payload.id as string;
  return payload.instanceId as string | undefined;
}

/** Who received `event` about the instance (or group 1), in a stable order. */
function receivers(event: string, about: string) {
  return principals.filter((who) => listeners[who].received.some((r) => r.event === event && subject(r) === about));
}

async function waitFor(predicate: () => boolean, what: string) {
  for (let i = 0; i < 250 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!predicate()) throw new Error(`never happened: ${what}`);
}

/**
 * Frames reach a connection in the order they were sent: once every listener has this marker,
 * whatever was delivered before it has arrived, so "not received" is a fact, not a timing guess.
 */
async function barrier() {
  const text = `barrier-${Math.random()}`;
  bus.publish({ event: 'DebugMessage', payload: { text }, audience: { kind: 'all' } });
  await waitFor(() => principals.every((who) => listeners[who].received.some((r) => r.payload.text === text)), 'the barrier');
}

function forget() {
  for (const who of principals) listeners[who].received.length = 0;
}

/** The admin receives everything: waiting for their copy waits for the event itself. */
const adminGot = (event: string, about: string) => waitFor(() => receivers(event, about).includes('admin'), `${event} at the admin`);

const instanceEvents = ['InstanceUpdated', 'InstanceStatusChanged', 'OperationCompleted', 'LogsAppended', 'BackupProgress', 'BackupCompleted'];

beforeAll(async () => {
  bus = new InProcessBus();
  h = await setup({ config: { dataDir }, engines: { pg: inertEngine('pg'), etcd: inertEngine('etcd') }, supervise: false, bus });
  ids.admin = (await addUser(h.db, 'admin@example.com', 'admin')).id;
  ids.member1 = (await addUser(h.db, 'member1@example.com')).id;
  ids.member2 = (await addUser(h.db, 'member2@example.com')).id;
  ids.outsider = (await addUser(h.db, 'outsider@example.com')).id;
  group1 = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  const group2 = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, group1, [ids.member1], h.clock.now());
  await addMembers(h.db, group2, [ids.member2], h.clock.now());
  for (const who of principals) cookies[who] = await cookieLogin(h, `${who}@example.com`);
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  for (const who of principals) {
    await listen(who);
    await joinAll(who, [['JoinInstances'], ['JoinGroups'], ['JoinBackups']]);
  }
});
afterAll(async () => {
  await Promise.all(principals.map((who) => listeners[who]?.connection.stop().catch(() => undefined)));
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('hub events about an instance of group 1', () => {
  it('reach its group’s member and admins only: created, updated, status, operation, logs, backups, group', async () => {
    const created = await call('admin', 'POST', '/instances', { name: 'orders', type: 'pg', groupId: group1 });
    instanceId = created.json().id;
    await h.app.instances.idle();
    for (const who of principals) {
      // Outsiders are refused these joins (Forbidden): they keep listening to the lists above.
      await joinAll(who, [['JoinInstance', instanceId], ['JoinLogs', instanceId], ['JoinBackups', instanceId]]);
    }

    await call('member1', 'PUT', `/instances/${instanceId}`, { description: 'Order history' });
    await call('member1', 'POST', `/instances/${instanceId}/backups/database/backup`);
    await h.app.backups.idle();
    await call('member1', 'POST', `/instances/${instanceId}/stop`);
    await h.app.instances.idle();
    await call('admin', 'PUT', `/groups/${group1}`, { name: 'payments-eu' });
    const scratch = (await call('admin', 'POST', '/instances', { name: 'scratch', type: 'etcd', groupId: group1 })).json().id;
    await h.app.instances.idle();
    await call('member1', 'DELETE', `/instances/${scratch}?force=true`);
    await h.app.instances.idle();
    await adminGot('LogsAppended', instanceId);
    await adminGot('BackupCompleted', instanceId);
    await adminGot('InstanceDeleted', scratch);
    await barrier();

    expect(receivers('InstanceCreated', instanceId)).toEqual(['admin', 'member1']);
    expect(receivers('InstanceDeleted', scratch)).toEqual(['admin', 'member1']);
    for (const event of instanceEvents) expect([event, receivers(event, instanceId)]).toEqual([event, ['admin', 'member1']]);
    expect(receivers('GroupChanged', group1)).toEqual(['admin', 'member1']);
  });

  it('stop reaching a member removed from the group mid-connection, who is told of the removal', async () => {
    forget();
    await call('admin', 'DELETE', `/groups/${group1}/users/${ids.member1}`);
    await adminGot('GroupChanged', group1);
    await barrier();
    expect(receivers('GroupChanged', group1)).toEqual(['admin', 'member1']);
    // The connection still holds the instance's hub groups it joined as a member.
    expect(listeners.member1.connection.state).toBe('Connected');

    forget();
    await call('admin', 'PUT', `/instances/${instanceId}`, { description: 'Orders, archived' });
    await call('admin', 'POST', `/instances/${instanceId}/start`);
    await h.app.instances.idle();
    await call('admin', 'POST', `/instances/${instanceId}/backups/database/backup`);
    await h.app.backups.idle();
    await call('admin', 'PUT', `/groups/${group1}`, { name: 'payments' });
    await adminGot('LogsAppended', instanceId);
    await adminGot('BackupCompleted', instanceId);
    await call('admin', 'DELETE', `/instances/${instanceId}?force=true`);
    await h.app.instances.idle();
    await adminGot('InstanceDeleted', instanceId);
    await barrier();

    for (const event of [...instanceEvents, 'InstanceDeleted']) expect([event, receivers(event, instanceId)]).toEqual([event, ['admin']]);
    expect(receivers('GroupChanged', group1)).toEqual(['admin']);
  });

  it('reach a user added to the group from then on, without reconnecting', async () => {
    forget();
    await call('admin', 'POST', `/groups/${group1}/users`, { userIds: [ids.member2] });
    await adminGot('GroupChanged', group1);
    await barrier();
    expect(receivers('GroupChanged', group1)).toEqual(['admin', 'member2']);
  });
});
