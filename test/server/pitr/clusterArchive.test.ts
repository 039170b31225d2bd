import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup } from '../../../contracts/backups';
import type { ConnectionInfo, Instance, InstanceMember } from '../../../contracts/instances';
import type { RecoveryWindow } from '../../../contracts/pitr';
import type { MetricsAppendedPayload } from '../../../contracts/statistics';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// WAL archiving and point-in-time recovery of a PostgreSQL cluster, with the real Patroni, HAProxy,
// etcd, PostgreSQL and pgBackRest: whichever member leads archives into the instance's one
// repository, a physical backup copies its files from a replica, and after a switchover the new
// leader's WAL (a new timeline) follows the old one's, so a restore to the latest moment holds every
// row written on either. A restore or a clone of a cluster is a single server of its own.

jest.setTimeout(420_000);

let world: InstanceWorld;
let cluster: Instance;
let connection: ConnectionInfo;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = (id: string) => path.join(world.dataDir, 'instances', id);
const members = async (): Promise<InstanceMember[]> => (await world.call('GET', `/instances/${cluster.id}/members`)).json();

/** SQL as the superuser through an address (`host:port`), as Warden itself connects to a cluster. */
async function sql<T = Record<string, unknown>>(instanceId: string, address: string, text: string, database = 'app'): Promise<T[]> {
  const [host, port] = address.split(':');
  const password = fs.readFileSync(path.join(dir(instanceId), 'superuser.password'), 'utf8').trim();
  const client = new Client({ host, port: Number(port), user: 'postgres', password, database, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}
const onCluster = <T = Record<string, unknown>>(text: string) => sql<T>(cluster.id, connection.readWrite!, text);

async function window(): Promise<RecoveryWindow> {
  const res = await world.call('GET', `/instances/${cluster.id}/recovery-window`);
  expect(res.statusCode).toBe(200);
  return res.json() as RecoveryWindow;
}

/** Switches WAL on the leader and waits until the window reaches `moment`: everything before it is archived. */
async function archivedPast(moment: string): Promise<RecoveryWindow> {
  await onCluster('select pg_switch_wal()');
  for (let waited = 0; waited < 90_000; waited += 500) {
    const w = await window();
    if (w.latest !== null && w.latest >= moment) return w;
    await sleep(500);
  }
  throw new Error(`the window never reached ${moment}: ${JSON.stringify(await window())}`);
}

async function until(ready: (listed: InstanceMember[]) => boolean, withinMs = 90_000): Promise<InstanceMember[]> {
  for (const deadline = Date.now() + withinMs; ; ) {
    const listed = await members();
    if (ready(listed)) return listed;
    if (Date.now() > deadline) throw new Error(`members stayed ${JSON.stringify(listed)}`);
    await sleep(500);
  }
}

const allRunning = (listed: InstanceMember[]) => listed.every((m) => m.state === 'running') && listed.some((m) => m.role === 'leader');

beforeAll(async () => {
  world = await instanceWorld({ pitr: true });
  // No consensus store chosen: Warden makes a 3-member etcd for the cluster, in its group.
  const res = await world.call('POST', '/instances', { name: 'ledger-ha', type: 'pg', members: 2 });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  cluster = await world.instance(res.json().id);
  expect(cluster.status).toBe('running');
  const [store] = (await world.call('GET', '/instances?search=ledger-ha-dcs')).json().items as Instance[];
  expect(store).toMatchObject({ name: 'ledger-ha-dcs', type: 'etcd', members: 3, status: 'running', groupId: cluster.groupId });
  expect(store.description).toBe('The consensus store of the PostgreSQL cluster ledger-ha, made with it.');
  connection = (await world.call('GET', `/instances/${cluster.id}/connection`)).json();
  await until(allRunning);
  await onCluster('create table entries (id serial primary key, note text not null, at timestamptz not null default clock_timestamp())');
});

afterAll(() => world?.destroy());

describe('a PostgreSQL cluster with WAL archiving', () => {
  it('archives from the leader into its own repository and backs up from a replica', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/backups/database/backup`, { kind: 'full' });
    expect(res.statusCode).toBe(202);
    await world.backups().idle();
    const [backup] = (await world.call('GET', `/instances/${cluster.id}/backups/database`)).json().items as Backup[];
    expect(backup).toMatchObject({ status: 'succeeded', format: 'pgBackRest full' });
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=backup`)).json().items.map((e: { message: string }) => e.message);
    expect(logged.some((m: string) => /^Physical full backup \S+ succeeded \(copied from a replica\)/.test(m))).toBe(true);

    const w = await window();
    expect(w).toMatchObject({ enabled: true, reason: null, repository: 'local', gaps: [] });
    expect(w.backups).toHaveLength(1);
    // The repository is the instance user's alone, as a single server's.
    const repo = fs.statSync(path.join(world.dataDir, 'pitr', cluster.id));
    expect(repo.mode & 0o777).toBe(0o700);
    expect(repo.uid).toBe(fs.statSync(dir(cluster.id)).uid);

    await world.service().probeAll();
    const health = (await world.instance(cluster.id)).health;
    expect(health.checks.find((c) => c.name === 'archiving')).toMatchObject({ level: 'good' });
  });

  it('takes a dump from a replica that is caught up, sparing the leader', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/backups/database/backup`, { kind: 'dump' });
    expect(res.statusCode).toBe(202);
    await world.backups().idle();
    const [dump] = (await world.call('GET', `/instances/${cluster.id}/backups/database`)).json().items as Backup[];
    expect(dump).toMatchObject({ status: 'succeeded' });
    expect(dump.format).not.toMatch(/pgBackRest/);
    // Its log line names the member it read (a small dump ends before a progress report is due).
    const logged = (await world.call('GET', `/instances/${cluster.id}/logs?handler=backup`)).json().items.map((e: { message: string }) => e.message);
    expect(logged).toContainEqual(expect.stringMatching(new RegExp(`^Backup ${dump.id} succeeded \\(read from member \\d, a replica\\): `)));
  });

  it('keeps archiving through a switchover, on the new leader’s timeline; a restore to the latest moment holds every row', async () => {
    await onCluster("insert into entries(note) select 'before ' || g from generate_series(1, 50) g");
    const before = await members();
    const leader = before.find((m) => m.role === 'leader')!;
    const switched = await world.call('POST', `/instances/${cluster.id}/cluster/switchover`, {});
    expect([switched.statusCode, switched.statusCode === 202 ? '' : switched.body]).toEqual([202, '']);
    await world.service().idle();
    const after = await until((l) => allRunning(l) && l.find((m) => m.role === 'leader')!.ordinal !== leader.ordinal);
    expect(after.find((m) => m.role === 'leader')!.timeline).toBe(2);

    await onCluster("insert into entries(note) select 'after ' || g from generate_series(1, 50) g");
    const [{ now }] = await onCluster<{ now: Date }>('select clock_timestamp() as now');
    const w = await archivedPast(now.toISOString());
    expect(w.gaps).toEqual([]);
    // The new leader's WAL went into the same repository: timeline 2's history and segments are there.
    const archived = fs.readdirSync(path.join(world.dataDir, 'pitr', cluster.id, 'archive', 'warden'), { recursive: true }).map(String);
    expect(archived.some((f) => f.endsWith('00000002.history'))).toBe(true);
    expect(archived.some((f) => /\/00000002[0-9A-F]{16}-/.test(f))).toBe(true);

    const res = await world.call('POST', `/instances/${cluster.id}/restore-point`, { name: 'ledger-latest', target: 'latest' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy).toMatchObject({ status: 'running', members: 1 });
    const copyConnection: ConnectionInfo = (await world.call('GET', `/instances/${copy.id}/connection`)).json();
    const rows = await sql<{ note: string }>(copy.id, `127.0.0.1:${copyConnection.port}`, 'select note from entries order by id');
    expect(rows).toHaveLength(100);
    expect(rows[0].note).toBe('before 1');
    expect(rows[99].note).toBe('after 50');
    // A single server of its own: initdb's configuration with Warden's, and none of Patroni's.
    const data = path.join(dir(copy.id), 'data');
    expect(fs.readFileSync(path.join(data, 'postgresql.conf'), 'utf8')).toMatch(/include 'warden\.conf'\n$/);
    expect(fs.existsSync(path.join(data, 'postgresql.base.conf'))).toBe(false);
    const settings = await sql<{ name: string; setting: string }>(copy.id, `127.0.0.1:${copyConnection.port}`, "select name, setting from pg_settings where name in ('cluster_name', 'hba_file', 'port')");
    expect(Object.fromEntries(settings.map((s) => [s.name, s.setting]))).toEqual({ cluster_name: '', hba_file: path.join(data, 'pg_hba.conf'), port: String(copy.port) });
  });

  it('restores to the latest moment into a new cluster of the size asked for, which Patroni takes over and replicates', async () => {
    // No store named: the twin keeps its leader lock in its source's.
    const res = await world.call('POST', `/instances/${cluster.id}/restore-point`, { name: 'ledger-twin', target: 'latest', members: 2 });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const twin = await world.instance(res.json().id);
    expect([twin.status, twin.statusReason, twin.members]).toEqual(['running', null, 2]);
    expect((await world.call('GET', '/instances?type=etcd')).json().items.map((i: Instance) => i.name)).toEqual(['ledger-ha-dcs']);
    const listed = (await world.call('GET', `/instances/${twin.id}/members`)).json() as InstanceMember[];
    expect(listed.map((m) => m.state)).toEqual(['running', 'running']);
    expect(listed.filter((m) => m.role === 'leader')).toHaveLength(1);
    const twinConnection: ConnectionInfo = (await world.call('GET', `/instances/${twin.id}/connection`)).json();
    const rows = await sql<{ n: string }>(twin.id, twinConnection.readWrite!, 'select count(*) as n from entries');
    expect(rows[0].n).toBe('100');
    // The replica copied the restored data from the leader, and streams what is written since.
    await sql(twin.id, twinConnection.readWrite!, "insert into entries(note) values ('on the twin')");
    const replica = listed.find((m) => m.role !== 'leader')!;
    let seen = '';
    for (let i = 0; i < 40 && seen !== '101'; i++) {
      [{ n: seen }] = await sql<{ n: string }>(twin.id, `127.0.0.1:${replica.port}`, 'select count(*) as n from entries');
      if (seen !== '101') await sleep(250);
    }
    expect(seen).toBe('101');
    // The source's superuser password no longer opens the twin.
    const sourcePassword = fs.readFileSync(path.join(dir(cluster.id), 'superuser.password'), 'utf8').trim();
    const [host, port] = twinConnection.readWrite!.split(':');
    const stranger = new Client({ host, port: Number(port), user: 'postgres', password: sourcePassword, database: 'postgres' });
    await expect(stranger.connect()).rejects.toThrow(/password authentication failed/);
    await stranger.end().catch(() => undefined);
  });

  it('refuses a restore into a cluster of an impossible size, with a 400 that says why', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/restore-point`, { name: 'ledger-huge', target: 'latest', members: 6 });
    expect(res.statusCode).toBe(400);
  });

  it('clones a running single server into a cluster of two', async () => {
    const single = await world.created({ name: 'ledger-solo', type: 'pg' });
    const [store] = (await world.call('GET', '/instances?search=ledger-ha-dcs')).json().items as Instance[];
    const res = await world.call('POST', `/instances/${single.id}/clone`, { name: 'ledger-solo-ha', members: 2, dcsInstanceId: store.id });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect([copy.status, copy.statusReason, copy.members]).toEqual(['running', null, 2]);
    const listed = (await world.call('GET', `/instances/${copy.id}/members`)).json() as InstanceMember[];
    expect(listed.map((m) => m.state)).toEqual(['running', 'running']);
    // A restore from a database backup stays a single server: asked for more, it says so.
    const refused = await world.call('POST', `/instances/${single.id}/clone`, { name: 'ledger-solo-dump', backupId: 'any', members: 2 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.members[0]).toMatch(/^A restore from a database backup makes a single server/);
  });

  it('clones into a single server that the owner reaches on its own socket', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/clone`, { name: 'ledger-copy' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect([copy.status, copy.statusReason, copy.members]).toEqual(['running', null, 1]);
    const socket = path.join(dir(copy.id), 'run');
    const rows = await sql<{ n: string }>(copy.id, `${socket}:${copy.port}`, 'select count(*) as n from entries');
    expect(rows[0].n).toBe('100');
  });

  it('drills a restore of its archive into a throwaway single server', async () => {
    expect((await world.call('POST', `/instances/${cluster.id}/pitr/drill`, {})).statusCode).toBe(202);
    await world.app().pointInTime.idle();
    const w = await window();
    expect(w.lastDrill).toMatchObject({ kind: 'drill', ok: true, detail: expect.stringMatching(/database\(s\) answer queries\.$/) });
  });

  it('gives a new archive timeout to every member through Patroni, the leader and the replica alike', async () => {
    const saved = await world.call('PUT', `/instances/${cluster.id}/pitr/settings`, { archiveTimeoutSeconds: 15, retentionDays: 3 });
    expect(saved.statusCode).toBe(200);
    for (const m of await members()) {
      let timeout = '';
      for (let waited = 0; timeout !== '15s' && waited < 10_000; waited += 250) {
        await sleep(250);
        [{ archive_timeout: timeout }] = await sql<{ archive_timeout: string }>(cluster.id, `127.0.0.1:${m.port}`, 'show archive_timeout');
      }
      expect(timeout).toBe('15s');
    }
  });

  it('samples its member count and its replicas’ lag, in bytes and in time', async () => {
    await world.app().metrics.sampleOnce();
    await world.app().metrics.sampleOnce();
    const sampled = (world.events('MetricsAppended') as MetricsAppendedPayload[]).filter((p) => p.instanceId === cluster.id).at(-1)!.values;
    expect(sampled).toMatchObject({ members_streaming: 2, replication_lag_bytes: expect.any(Number), replication_lag_seconds: expect.any(Number) });
    expect(sampled.replication_lag_seconds).toBeGreaterThanOrEqual(0);
  });

  it('sets a named restore point on the leader', async () => {
    const res = await world.call('POST', `/instances/${cluster.id}/restore-points`, { name: 'after the switchover' });
    expect(res.statusCode).toBe(201);
    expect((await window()).restorePoints.map((p) => p.name)).toContain('after the switchover');
  });
});
