import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import type { LogEntry, LogsAppendedPayload } from '../../contracts/logs';
import { addMembers, createGroup, removeMember } from '../../server/db/groups';
import { insertInstance } from '../../server/db/instances';
import { InProcessBus } from '../../server/hub/bus';
import { addUser, cookieLogin, origin, setup, type Harness } from './helpers';

// JoinLogs(null), the whole scope of the caller live: any signed-in user may join it, and each
// LogsAppended carries only the entries that receiver may see (their groups' instances; the
// control plane's entries for admins only), batched into at most one event per flush.

let h: Harness;
let baseUrl: string;
const principals = ['admin', 'member1', 'member2', 'outsider'] as const;
type Who = (typeof principals)[number];
const ids = {} as Record<Who, string>;
const listeners = {} as Record<Who, { connection: HubConnection; received: LogsAppendedPayload[] }>;
let group1: string;
let instance1: string;
let instance2: string;

async function instance(name: string, groupId: string): Promise<string> {
  const id = randomUUID();
  await insertInstance(h.db, {
    id, name, type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: groupId, engine_version: '15.0', port: 21000 + Math.floor(Math.random() * 5000), peer_port: null,
    description: '', created_at: h.clock.now().toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  return id;
}

async function waitFor(predicate: () => boolean, what: string) {
  for (let i = 0; i < 250 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!predicate()) throw new Error(`never happened: ${what}`);
}

const messagesOf = (who: Who) => listeners[who].received.flatMap((p) => p.entries.map((e: LogEntry) => e.message)).sort();

/** Writes entries and waits until their batch went out (the admin sees every entry). */
async function write(...entries: { instanceId: string | null; message: string }[]) {
  await h.app.instanceLogs.write(entries.map((e) => ({ ...e, timestamp: h.clock.now().toISOString(), level: 'information' as const, handler: 'test' })));
  const last = entries[entries.length - 1].message;
  await waitFor(() => messagesOf('admin').includes(last), `${last} at the admin`);
  // One more round trip, so anything meant for the others has arrived too (frames keep their order).
  await h.app.instanceLogs.write({ instanceId: null, message: `marker ${last}`, level: 'verbose', handler: 'test' });
  await waitFor(() => messagesOf('admin').includes(`marker ${last}`), 'the marker');
}

beforeAll(async () => {
  h = await setup({ supervise: false, bus: new InProcessBus() });
  for (const who of principals) ids[who] = (await addUser(h.db, `${who}@example.com`, who === 'admin' ? 'admin' : 'regular')).id;
  group1 = (await createGroup(h.db, { name: 'payments' }, h.clock.now())).id;
  const group2 = (await createGroup(h.db, { name: 'search' }, h.clock.now())).id;
  await addMembers(h.db, group1, [ids.member1], h.clock.now());
  await addMembers(h.db, group2, [ids.member2], h.clock.now());
  instance1 = await instance('orders', group1);
  instance2 = await instance('catalog', group2);
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  for (const who of principals) {
    const cookie = await cookieLogin(h, `${who}@example.com`);
    const connection = new HubConnectionBuilder()
      .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
      .configureLogging(LogLevel.None)
      .build();
    const received: LogsAppendedPayload[] = [];
    connection.on('LogsAppended', (payload: LogsAppendedPayload) => received.push(payload));
    await connection.start();
    listeners[who] = { connection, received };
  }
});
afterAll(async () => {
  await Promise.all(principals.map((who) => listeners[who]?.connection.stop().catch(() => undefined)));
  await h.close();
});

describe('JoinLogs(null)', () => {
  it('may be joined by every signed-in user', async () => {
    for (const who of principals) await expect(listeners[who].connection.invoke('JoinLogs', null)).resolves.toBeNull();
  });

  it("delivers each receiver only the entries of their scope, the control plane's to admins only", async () => {
    await write(
      { instanceId: instance1, message: 'orders one' },
      { instanceId: instance2, message: 'catalog one' },
      { instanceId: null, message: 'control plane one' },
      { instanceId: instance1, message: 'orders two' },
    );
    expect(messagesOf('admin')).toEqual(expect.arrayContaining(['catalog one', 'control plane one', 'orders one', 'orders two']));
    expect(messagesOf('member1')).toEqual(['orders one', 'orders two']);
    expect(messagesOf('member2')).toEqual(['catalog one']);
    expect(messagesOf('outsider')).toEqual([]);
    // One batch: the member got both entries of their instance in a single event.
    expect(listeners.member1.received).toHaveLength(1);
    expect(listeners.member1.received[0].entries.map((e) => e.instanceId)).toEqual([instance1, instance1]);
  });

  it('stops delivering an instance to a member removed from its group, at once', async () => {
    for (const who of principals) listeners[who].received.length = 0;
    await removeMember(h.db, group1, ids.member1);
    await write({ instanceId: instance1, message: 'orders after removal' });
    expect(messagesOf('member1')).toEqual([]);
    expect(messagesOf('admin')).toContain('orders after removal');
  });

  it('still refuses JoinLogs of an instance the caller may not see', async () => {
    await expect(listeners.member2.connection.invoke('JoinLogs', instance1)).rejects.toThrow(/Forbidden/);
  });
});
