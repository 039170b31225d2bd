import fs from 'node:fs';
import { Client } from 'pg';
import type { ClusterHistoryEntry } from '../../../contracts/clusters';
import type { ConnectionInfo, Instance, InstanceMember } from '../../../contracts/instances';
import { memberPostmasterPid } from '../../../server/engines/pgCluster';
import { instanceWorld, type InstanceWorld } from './world';
import { processAlive as alive } from '../helpers';

// A PostgreSQL cluster of three members on Patroni 3.0, whose consensus lives in a three-member
// Warden etcd, with HAProxy's read-write and read-only addresses in front: all real, from Debian.
// One cluster serves the whole file: its leader's postgres is killed, then its whole member (Patroni
// and postgres together, as a lost host), and writes carry on through the same address.

jest.setTimeout(420_000);

let world: InstanceWorld;
let dcs: Instance;
let cluster: Instance;
let connection: ConnectionInfo;
let ownerPassword: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = () => `${world.dataDir}/instances/${cluster.id}`;
const members = async (): Promise<InstanceMember[]> => (await world.call('GET', `/instances/${cluster.id}/members`)).json();
const leaderOf = (listed: InstanceMember[]) => listed.find((m) => m.role === 'leader' && m.state === 'running');
/** A member's postmaster on the host, as the engine finds it. */
const postmasterOf = (ordinal: number) =>
  memberPostmasterPid({ id: cluster.id, dir: dir(), port: 0, members: [{ port: 0, peerPort: 0 }, { port: 0, peerPort: 0 }] }, ordinal, '/usr/lib/postgresql/15/bin/postgres');
const readPid = (file: string) => Number(fs.readFileSync(file, 'utf8').trim());
/** One statement as the owner through an address (host:port); throws what PostgreSQL or the socket says. */
async function asOwner<T = Record<string, unknown>>(address: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const [host, port] = address.split(':');
  const client = new Client({ host, port: Number(port), user: 'app', password: ownerPassword, database: 'app', connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Writes through the read-write address until one succeeds; answers the seconds it took. */
async function writableAgain(value: string, withinMs = 60_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await asOwner(connection.readWrite!, 'insert into notes(body) values ($1)', [value]);
      return (Date.now() - started) / 1000;
    } catch (error) {
      if (Date.now() - started > withinMs) throw error;
      await sleep(200);
    }
  }
}

/** Until the members answer as `ready` says, probing and letting supervision work meanwhile. */
async function until(ready: (listed: InstanceMember[]) => boolean, withinMs = 90_000): Promise<InstanceMember[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const listed = await members();
    if (ready(listed)) return listed;
    if (Date.now() > deadline) throw new Error(`members stayed ${JSON.stringify(listed)}`);
    await sleep(500);
    await world.service().probeAll();
  }
}

beforeAll(async () => {
  world = await instanceWorld();
  const store = await world.call('POST', '/instances', { name: 'consensus', type: 'etcd', members: 3 });
  expect(store.statusCode).toBe(202);
  await world.service().idle();
  dcs = await world.instance(store.json().id);
  const res = await world.call('POST', '/instances', { name: 'orders-ha', type: 'pg', members: 3, dcsInstanceId: dcs.id, synchronous: true });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  cluster = await world.instance(res.json().id);
  connection = (await world.call('GET', `/instances/${cluster.id}/connection`)).json();
  ownerPassword = (await world.call('POST', `/instances/${cluster.id}/connection/secret`, {})).json().password;
});

afterAll(() => world.destroy());

describe('a PostgreSQL cluster of three members on Patroni', () => {
  it('runs three members, one leader and two replicas, each Patroni the instance user’s', async () => {
    expect(cluster).toMatchObject({ status: 'running', type: 'pg', members: 3 });
    // Patroni names the synchronous standby on one of its first rounds.
    const listed = await until((l) => l.every((m) => m.state === 'running') && l.some((m) => m.role === 'sync_standby'));
    expect(listed.map((m) => m.ordinal)).toEqual([1, 2, 3]);
    expect(listed.filter((m) => m.role === 'leader')).toHaveLength(1);
    // Synchronous mode: one standby is the synchronous one.
    expect(listed.filter((m) => m.role === 'sync_standby')).toHaveLength(1);
    expect(new Set(listed.map((m) => m.timeline))).toEqual(new Set([1]));
    const owner = fs.statSync(dir()).uid;
    for (const ordinal of [1, 2, 3]) expect(fs.statSync(`/proc/${readPid(`${dir()}/members/${ordinal}/patroni.pid`)}`).uid).toBe(owner);
  });

  it('gives a read-write and a read-only address and a multi-host URI; the owner writes on one and reads on the other', async () => {
    expect(connection.readWrite).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(connection.readOnly).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(connection.port).toBe(Number(connection.readWrite!.split(':')[1]));
    expect(connection.endpoints).toEqual((await members()).map((m) => `127.0.0.1:${m.port}`));
    expect(connection.multiHostUri).toBe(`postgresql://app@${connection.endpoints.join(',')}/app?target_session_attrs=read-write`);
    await asOwner(connection.readWrite!, 'create table notes(id serial primary key, body text not null)');
    await asOwner(connection.readWrite!, "insert into notes(body) values ('first')");
    const [replica] = await asOwner<{ recovery: boolean }>(connection.readOnly!, 'select pg_is_in_recovery() as recovery');
    expect(replica.recovery).toBe(true);
    let read: { body: string }[] = [];
    for (let i = 0; i < 20 && read.length === 0; i++) {
      read = await asOwner<{ body: string }>(connection.readOnly!, 'select body from notes');
      if (read.length === 0) await sleep(100);
    }
    expect(read).toEqual([{ body: 'first' }]);
    // The replicas refuse writes: the read-only address is for reading.
    await expect(asOwner(connection.readOnly!, "insert into notes(body) values ('no')")).rejects.toThrow(/read-only transaction/);
  });

  it('takes writes again within seconds when the leader’s postgres dies, Patroni starting it again', async () => {
    const leader = leaderOf(await members())!;
    const postmaster = postmasterOf(leader.ordinal)!;
    expect(postmaster).not.toBeNull();
    process.kill(postmaster, 'SIGKILL');
    const seconds = await writableAgain('after postgres died');
    expect(seconds).toBeLessThan(30);
    await until((l) => l.every((m) => m.state === 'running') && leaderOf(l) !== undefined);
  });

  it('elects a new leader when the leader’s whole member is lost, writes go on through the same address, and supervision brings the member back as a replica', async () => {
    // In synchronous mode only the synchronous standby may take over: the leader's postgres restarting
    // above left none named for a few rounds, so the loss waits until one is.
    const before = await until((l) => l.every((m) => m.state === 'running') && leaderOf(l) !== undefined && l.some((m) => m.role === 'sync_standby'));
    const leader = leaderOf(before)!;
    const sandbox = readPid(`${dir()}/members/${leader.ordinal}/sandbox.pid`);
    process.kill(sandbox, 'SIGKILL');
    for (let i = 0; i < 100 && alive(sandbox); i++) await sleep(50);

    const seconds = await writableAgain('after the leader was lost', 90_000);
    expect(seconds).toBeLessThan(60);
    await until((l) => {
      const next = leaderOf(l);
      return next !== undefined && next.ordinal !== leader.ordinal;
    });
    const rows = await asOwner<{ body: string }>(connection.readWrite!, 'select body from notes order by id');
    expect(rows.map((r) => r.body)).toEqual(['first', 'after postgres died', 'after the leader was lost']);

    // Supervision starts the lost member again; Patroni rejoins it as a replica of the new leader.
    const back = await until((l) => l.every((m) => m.state === 'running'), 120_000);
    expect(back.find((m) => m.ordinal === leader.ordinal)?.role).not.toBe('leader');
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=supervisor`)).json().items.map((e: { message: string }) => e.message);
    expect(logged.some((m: string) => m.startsWith(`Member ${leader.ordinal} of the cluster stopped`))).toBe(true);
    // The probe that saw the new leader wrote the change to the instance's log.
    expect(logged.some((m: string) => m.startsWith(`Leader: member ${leader.ordinal} leads on timeline`))).toBe(true);
  });

  it('switches over to the synchronous standby on request, the old leader rejoining as a replica, each step in the log', async () => {
    await world.service().idle();
    const before = await until((l) => l.every((m) => m.state === 'running') && l.some((m) => m.role === 'sync_standby'));
    const leader = leaderOf(before)!;
    const standby = before.find((m) => m.role === 'sync_standby')!;
    const res = await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, {});
    expect(res.statusCode).toBe(202);
    expect(res.json().operation.kind).toBe('switchover');
    await world.service().idle();
    const done = world.events('OperationCompleted').filter((p) => p.kind === 'switchover');
    expect(done.at(-1)).toMatchObject({ ok: true, detail: expect.stringMatching(new RegExp(`^member ${standby.ordinal} leads \\(was member ${leader.ordinal}\\)`)) });
    const after = await until((l) => l.every((m) => m.state === 'running'));
    expect(leaderOf(after)?.ordinal).toBe(standby.ordinal);
    expect(after.find((m) => m.ordinal === leader.ordinal)?.role).not.toBe('leader');
    await writableAgain('after the switchover');
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=supervisor`)).json().items.map((e: { message: string }) => e.message);
    expect(logged).toContain(`Switchover asked: member ${leader.ordinal} → member ${standby.ordinal}.`);
    expect(logged).toContain(`Member ${standby.ordinal} leads; member ${leader.ordinal} rejoins as a replica.`);
  });

  it('refuses a switchover onto the leader, onto no member, or at a time gone by, with a 400 that says why', async () => {
    const leader = leaderOf(await members())!;
    for (const [body, why] of [
      [{ candidate: leader.ordinal }, `Member ${leader.ordinal} leads already.`],
      [{ candidate: 5 }, 'The cluster has no member 5.'],
      [{ scheduledAt: '2001-01-01T00:00:00Z' }, 'A switchover is scheduled for a time to come.'],
    ] as const) {
      const res = await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, body);
      expect([res.statusCode, res.json().detail]).toEqual([400, why]);
    }
    expect((await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, { candidate: 'two' })).statusCode).toBe(400);
  });

  it('holds a switchover scheduled for later in its health until it is cancelled', async () => {
    await world.service().idle();
    const at = new Date(Date.now() + 10 * 60_000).toISOString();
    const leader = leaderOf(await members())!;
    expect((await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, { scheduledAt: at })).statusCode).toBe(202);
    await world.service().idle();
    expect(world.events('OperationCompleted').filter((p) => p.instanceId === cluster.id).at(-1)).toMatchObject({ kind: 'switchover', ok: true, detail: expect.stringMatching(/^scheduled for /) });
    await world.service().probeAll();
    const scheduled = (await world.instance(cluster.id)).health.checks.find((c) => c.name === 'switchover');
    expect(scheduled?.message).toMatch(new RegExp(`^scheduled for ${at.slice(0, 16)}.*: member ${leader.ordinal} hands the lead to member \\d$`));

    expect((await world.call('DELETE', `/instances/${cluster.id}/cluster/switchover`)).statusCode).toBe(202);
    await world.service().idle();
    expect(world.events('OperationCompleted').filter((p) => p.instanceId === cluster.id).at(-1)).toMatchObject({ ok: true, detail: 'the scheduled switchover was cancelled' });
    expect((await world.instance(cluster.id)).health.checks.find((c) => c.name === 'switchover')).toBeUndefined();
    const again = await world.call('DELETE', `/instances/${cluster.id}/cluster/switchover`);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe('No switchover is scheduled.');
    expect(leaderOf(await members())!.ordinal).toBe(leader.ordinal);
  });

  it('leaves a lost leader lost while automatic failover is paused, and fails over once it is resumed', async () => {
    await world.service().idle();
    const before = await until((l) => l.every((m) => m.state === 'running') && l.some((m) => m.role === 'sync_standby'));
    expect((await world.call('POST', `/instances/${cluster.id}/cluster/pause`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(cluster.id)).health.checks).toContainEqual({ name: 'failover', level: 'warn', message: 'automatic failover is paused (maintenance)' });

    const leader = leaderOf(before)!;
    process.kill(readPid(`${dir()}/members/${leader.ordinal}/sandbox.pid`), 'SIGKILL');
    // Well past the leader lock's 20 s: nobody took over.
    await sleep(28_000);
    expect((await members()).filter((m) => m.role === 'leader' && m.state === 'running')).toEqual([]);

    expect((await world.call('POST', `/instances/${cluster.id}/cluster/resume`, {})).statusCode).toBe(202);
    await world.service().idle();
    const after = await until((l) => leaderOf(l) !== undefined && leaderOf(l)!.ordinal !== leader.ordinal, 60_000);
    expect(leaderOf(after)!.ordinal).not.toBe(leader.ordinal);
    await writableAgain('after the resume');
    await until((l) => l.every((m) => m.state === 'running'), 120_000);
    await world.service().idle();
    expect((await world.instance(cluster.id)).health.checks.some((c) => c.name === 'failover')).toBe(false);
  });

  it('tells the history of its timelines: each failover and switchover, with Patroni’s reason', async () => {
    const history: ClusterHistoryEntry[] = (await world.call('GET', `/instances/${cluster.id}/cluster/history`)).json();
    // A lost leader, a switchover and a failover after the pause: three new timelines at least.
    expect(history.length).toBeGreaterThanOrEqual(3);
    expect(history.map((h) => h.timeline)).toEqual([...history.map((h) => h.timeline)].sort((a, b) => a - b));
    for (const entry of history) expect(entry.reason).not.toBe('');
    const leader = leaderOf(await members())!;
    expect(history.at(-1)).toMatchObject({ newLeader: leader.name, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // HAProxy's log measured how long each lost leader left the read-write address without a writer:
    // about the lock's 20 s, and longer for the one the pause held lost. The switchover's hand-over
    // lasts a health check or two: HAProxy logs it as a short outage when its checks fall in it, or not at all.
    const measured = history.flatMap((h) => (h.writeOutageSeconds === null ? [] : [h.writeOutageSeconds]));
    expect(measured.filter((seconds) => seconds > 10).length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...measured)).toBeGreaterThan(25);
    expect(history.filter((h) => h.writeOutageSeconds === null || h.writeOutageSeconds < 5).length).toBeGreaterThanOrEqual(1);
    const timing = (await world.call('GET', `/instances/${cluster.id}/cluster/timing`)).json();
    expect(timing).toEqual({ preset: 'fast', synchronous: true, ttl: 20, loopWait: 1, retryTimeout: 9, checkIntervalMs: 500, checkFall: 2, worstCaseSeconds: 22 });
    // The instance's log names each new leader with Patroni's reason.
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=supervisor`)).json().items.map((e: { message: string }) => e.message);
    expect(logged.some((m: string) => /^Leader: .* → member \d leads on timeline \d+ \(Patroni: .+\)$/.test(m))).toBe(true);
  });

  it('gives every member a configuration change through Patroni, and restarts member by member for one that needs it', async () => {
    await world.service().idle();
    await until((l) => l.every((m) => m.state === 'running'));
    const leader = leaderOf(await members())!;
    const saved = await world.call('PUT', `/instances/${cluster.id}/config`, { parameters: { work_mem: '8MB', max_connections: '120' }, apply: 'restart' });
    expect(saved.json()).toMatchObject({ reload: ['work_mem'], restart: ['max_connections'], applied: 'restarting' });
    await world.service().idle();
    expect(world.events('OperationCompleted').filter((p) => p.instanceId === cluster.id).at(-1)).toMatchObject({ ok: true });
    // Each member has both values: asked one by one on its own port.
    for (const m of await until((l) => l.every((x) => x.state === 'running'))) {
      const [settings] = await asOwner<{ work_mem: string; max_connections: string }>(
        `127.0.0.1:${m.port}`,
        "select current_setting('work_mem') as work_mem, current_setting('max_connections') as max_connections",
      );
      expect(settings).toEqual({ work_mem: '8MB', max_connections: '120' });
    }
    // A rolling restart keeps the leader where it was.
    expect(leaderOf(await members())?.ordinal).toBe(leader.ordinal);
  });

  it('shows a restart-level change as pending on each member until the members restart, and each replica’s lag in seconds', async () => {
    const saved = await world.call('PUT', `/instances/${cluster.id}/config`, { parameters: { max_connections: '110' }, apply: 'reload' });
    expect(saved.json()).toMatchObject({ restart: ['max_connections'], applied: 'reloaded' });
    await world.service().idle();
    const pending = await until((l) => l.every((m) => m.pendingRestart), 30_000);
    for (const m of pending) expect(m.lagSeconds === null ? m.role === 'leader' : m.lagSeconds >= 0).toBe(true);
    expect((await world.call('POST', `/instances/${cluster.id}/restart`, {})).statusCode).toBe(202);
    await world.service().idle();
    await until((l) => l.every((m) => m.state === 'running' && !m.pendingRestart), 30_000);
  });

  it('grows by a replica that copies the leader and joins the addresses without cutting their sessions, and shrinks by it again', async () => {
    await world.service().idle();
    await until((l) => l.every((m) => m.state === 'running'));
    // A session through the read-write address, open across HAProxy's reloads.
    const [host, port] = connection.readWrite!.split(':');
    const session = new Client({ host, port: Number(port), user: 'app', password: ownerPassword, database: 'app' });
    await session.connect();
    try {
      const grown = await world.call('POST', `/instances/${cluster.id}/members`, {});
      expect(grown.statusCode).toBe(202);
      await world.service().idle();
      expect(world.events('OperationCompleted').filter((p) => p.instanceId === cluster.id).at(-1)).toMatchObject({ kind: 'addMember', ok: true, detail: 'member 4 joined as a replica: 4 members' });
      expect((await world.instance(cluster.id)).members).toBe(4);
      // A session opened just after HAProxy's reload reaches the leader: the members keep their states across it.
      await asOwner(connection.readWrite!, "insert into notes(body) values ('just after the reload')");
      const listed = await until((l) => l.length === 4 && l.every((m) => m.state === 'running'));
      expect(listed[3]).toMatchObject({ ordinal: 4, role: expect.stringMatching(/^(replica|sync_standby)$/), timeline: leaderOf(listed)!.timeline });
      expect(fs.readFileSync(`${dir()}/haproxy.cfg`, 'utf8')).toContain(`server ${cluster.id}-4 127.0.0.1:${listed[3].port} check port`);
      // The new member holds the leader's rows, and the session opened before is still served.
      const [{ n }] = (await session.query<{ n: string }>('select count(*)::text as n from notes')).rows;
      let copied = '';
      for (let i = 0; i < 40 && copied !== n; i++) {
        [{ n: copied }] = await asOwner<{ n: string }>(`127.0.0.1:${listed[3].port}`, 'select count(*)::text as n from notes');
        if (copied !== n) await sleep(250);
      }
      expect(copied).toBe(n);

      const notLast = await world.call('DELETE', `/instances/${cluster.id}/members/2`);
      expect(notLast.statusCode).toBe(400);
      expect(notLast.json().detail).toBe('Only the last member (4) is removed: members keep their numbers and ports.');
      if (leaderOf(listed)!.ordinal === 4) {
        expect((await world.call('DELETE', `/instances/${cluster.id}/members/4`)).json().detail).toBe('Member 4 leads: switch over to another member first.');
        return;
      }
      expect((await world.call('DELETE', `/instances/${cluster.id}/members/4`)).statusCode).toBe(202);
      await world.service().idle();
      expect(world.events('OperationCompleted').filter((p) => p.instanceId === cluster.id).at(-1)).toMatchObject({ kind: 'removeMember', ok: true });
      expect((await world.instance(cluster.id)).members).toBe(3);
      await asOwner(connection.readWrite!, "insert into notes(body) values ('just after the second reload')");
      expect((await members()).map((m) => m.ordinal)).toEqual([1, 2, 3]);
      expect(fs.existsSync(`${dir()}/members/4`)).toBe(false);
      expect(fs.readFileSync(`${dir()}/haproxy.cfg`, 'utf8')).not.toContain(`${cluster.id}-4`);
      expect((await session.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await session.end().catch(() => undefined);
    }
  });

  it('stops and starts every member together, keeping its data', async () => {
    await world.service().idle();
    const [before] = await asOwner<{ n: string }>(connection.readWrite!, 'select count(*)::text as n from notes');
    expect((await world.call('POST', `/instances/${cluster.id}/stop`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(cluster.id)).status).toBe('stopped');
    expect((await members()).map((m) => m.state)).toEqual(['stopped', 'stopped', 'stopped']);
    expect((await world.call('POST', `/instances/${cluster.id}/start`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(cluster.id)).status).toBe('running');
    const [after] = await asOwner<{ n: string }>(connection.readWrite!, 'select count(*)::text as n from notes');
    expect(after.n).toBe(before.n);
  });

  it('refuses a cluster without an etcd of its group, or on one that is not etcd, with a 400 that says why', async () => {
    const single = await world.created({ name: 'solo-dcs', type: 'pg' });
    // Without a store chosen, Warden would make one named after the cluster: a name taken is said first.
    const taken = await world.call('POST', '/instances', { name: 'solo', type: 'pg', members: 2 });
    expect([taken.statusCode, taken.json().errors?.dcsInstanceId?.[0]]).toEqual([400, expect.stringMatching(/^Warden would make an etcd instance named solo-dcs .*Choose an etcd instance of the group instead\.$/)]);
    expect((await world.call('GET', '/instances?search=solo')).json().items.map((i: Instance) => i.name)).toEqual(['solo-dcs']);
    for (const [body, field, why] of [
      [{ members: 2, dcsInstanceId: single.id }, 'dcsInstanceId', /must be an etcd instance/],
      [{ members: 2, dcsInstanceId: 'no-such-instance' }, 'dcsInstanceId', /No etcd instance of this group/],
      [{ members: 1, synchronous: true }, 'synchronous', /Only a PostgreSQL cluster/],
    ] as const) {
      const res = await world.call('POST', '/instances', { name: `refused-${field.toLowerCase()}-${Math.random().toString(36).slice(2, 6)}`, type: 'pg', ...body });
      expect([res.statusCode, res.json().errors?.[field]?.[0]]).toEqual([400, expect.stringMatching(why)]);
    }
    // Another group's etcd is no answer either, as if it did not exist.
    const { groupId } = await world.groupWithMember('elsewhere', 'elsewhere@example.com');
    const res = await world.call('POST', '/instances', { name: 'refused-other-group', type: 'pg', members: 2, dcsInstanceId: dcs.id, groupId });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.dcsInstanceId[0]).toMatch(/No etcd instance of this group/);
  });

  it('keeps its etcd from being deleted while it holds the cluster’s leader lock', async () => {
    const res = await world.call('DELETE', `/instances/${dcs.id}?force=true`);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toBe('consensus keeps the leader lock of the PostgreSQL cluster orders-ha: delete it first.');
    expect((await world.instance(dcs.id)).status).toBe('running');
  });

  it('keeps Patroni’s keys to the cluster’s own etcd user: the store’s owner reads them, the cluster’s user reads nothing else', async () => {
    const password = fs.readFileSync(`${dir()}/dcs.password`, 'utf8').trim();
    const port = dcs.port;
    const token = await (await fetch(`http://127.0.0.1:${port}/v3/auth/authenticate`, { method: 'POST', body: JSON.stringify({ name: `patroni-${cluster.id}`, password }) })).json();
    const range = async (key: string, end?: string) =>
      fetch(`http://127.0.0.1:${port}/v3/kv/range`, {
        method: 'POST',
        headers: { authorization: token.token },
        body: JSON.stringify({ key: Buffer.from(key).toString('base64'), ...(end && { range_end: Buffer.from(end).toString('base64') }) }),
      });
    const own = await range(`/warden-patroni/${cluster.id}/`, `/warden-patroni/${cluster.id}0`);
    expect(own.status).toBe(200);
    expect(Number((await own.json()).count)).toBeGreaterThan(0);
    const other = await range('greeting');
    expect(other.status).not.toBe(200);
  });

  it('shows the cluster to its group alone: others get 404', async () => {
    const { cookie } = await world.groupWithMember('outsiders', 'outsider@example.com');
    expect((await world.call('GET', `/instances/${cluster.id}/members`, undefined, cookie)).statusCode).toBe(404);
    expect((await world.call('GET', `/instances/${cluster.id}/connection`, undefined, cookie)).statusCode).toBe(404);
    expect((await world.call('GET', `/instances/${cluster.id}/cluster/history`, undefined, cookie)).statusCode).toBe(404);
    expect((await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, {}, cookie)).statusCode).toBe(404);
    expect((await world.call('POST', `/instances/${cluster.id}/cluster/pause`, {}, cookie)).statusCode).toBe(404);
    expect((await world.call('POST', `/instances/${cluster.id}/members/1/restart`, {}, cookie)).statusCode).toBe(404);
  });
});
