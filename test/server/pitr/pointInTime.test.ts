import fs from 'node:fs';
import path from 'node:path';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryWindow, RestorePlan, RestorePoint } from '../../../contracts/pitr';
import { instanceWorld, type InstanceWorld } from '../instances/world';
import { superuserSql } from './superuserSql';

// Point-in-time recovery with the real PostgreSQL and the real pgBackRest: WAL archived into the
// instance's own encrypted repository, a full backup, then restores into new instances to a time,
// a named restore point and the latest moment, and every target the window cannot reach refused
// before anything runs. One source instance for the file.

jest.setTimeout(300_000);

let world: InstanceWorld;
let source: Instance;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(done: () => boolean, ms = 10_000) {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > ms) throw new Error('not within 10 s');
    await sleep(50);
  }
}

const sql = superuserSql(() => world);

async function window(instanceId = source.id): Promise<RecoveryWindow> {
  const res = await world.call('GET', `/instances/${instanceId}/recovery-window`);
  expect(res.statusCode).toBe(200);
  return res.json() as RecoveryWindow;
}

/** Switches WAL and waits until the window reaches `moment`: everything before it is archived. */
async function archivedPast(moment: string) {
  await sql(source.id, 'select pg_switch_wal()');
  for (let waited = 0; waited < 60_000; waited += 500) {
    const w = await window();
    if (w.latest !== null && w.latest >= moment) return w;
    await sleep(500);
  }
  throw new Error(`the window never reached ${moment}`);
}

async function restored(body: object): Promise<Instance> {
  const res = await world.call('POST', `/instances/${source.id}/restore-point`, body);
  if (res.statusCode !== 202) throw new Error(`restore: ${res.statusCode} ${res.body}`);
  await world.service().idle();
  const made = await world.instance(res.json().id);
  if (made.status !== 'running') throw new Error(`the restored instance is ${made.status}: ${made.statusReason}`);
  return made;
}

beforeAll(async () => {
  world = await instanceWorld({ pitr: true });
  source = await world.created({ name: 'orders', type: 'pg' });
  expect(source.status).toBe('running');
  await sql(source.id, 'create table events (id serial primary key, at timestamptz not null default clock_timestamp())', 'app');
  const res = await world.call('POST', `/instances/${source.id}/backups/database/backup`, { kind: 'full' });
  expect(res.statusCode).toBe(202);
  await world.backups().idle();
});

afterAll(() => world?.destroy());

describe('the recoverable window', () => {
  it('starts with the first full backup, lists it among the database backups, and keeps the repository its user\'s alone, encrypted', async () => {
    const w = await window();
    expect(w).toMatchObject({ enabled: true, reason: null, repository: 'local', archiveTimeoutSeconds: 60, retentionDays: 7, gaps: [] });
    expect(w.backups).toHaveLength(1);
    expect(w.backups[0]).toMatchObject({ kind: 'full', dependsOn: [] });
    expect(w.earliest).toBe(w.backups[0].finishedAt);
    expect(w.latest! >= w.earliest!).toBe(true);

    const listed = (await world.call('GET', `/instances/${source.id}/backups/database`)).json().items as Backup[];
    expect(listed[0]).toMatchObject({ status: 'succeeded', format: 'pgBackRest full', contents: { physical: { label: w.backups[0].id } } });
    expect(listed[0].sizeBytes).toBeGreaterThan(0);

    const repo = path.join(world.dataDir, 'pitr', source.id);
    const stat = fs.statSync(repo);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(stat.uid).not.toBe(0);
    expect((fs.statSync(path.join(world.dataDir, 'instances', source.id, 'pitr.key')).mode & 0o777)).toBe(0o600);
    // The repository holds no plain text of the data: every file is encrypted with the instance's key.
    const info = fs.readFileSync(path.join(repo, 'backup', 'warden', 'backup.info'));
    expect(info.subarray(0, 8).toString('latin1')).toBe('Salted__');
  });

  it('refuses a target before the window or after it, stating the window, before anything runs', async () => {
    const w = await window();
    const before = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'too-early', target: { time: '2020-01-01T00:00:00Z' } });
    expect(before.statusCode).toBe(400);
    // The latest moment moves on while the instance runs: the window stated is the one of the moment.
    expect(before.json().detail).toMatch(new RegExp(`^2020-01-01T00:00:00Z \\(2020-01-01T00:00:00\\.000Z\\) is outside the recoverable window ${w.earliest!.replace(/\./g, '\\.')} – \\S+Z\\.$`));
    const after = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'too-late', target: { time: '2999-01-01T00:00:00+02:00' } });
    expect(after.statusCode).toBe(400);
    expect(after.json().detail).toMatch(/is outside the recoverable window/);
    // A bare local time is refused by the contract: a time zone is never guessed.
    const bare = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'no-zone', target: { time: '2026-11-26T10:42:00' } });
    expect(bare.statusCode).toBe(400);
    expect((await world.call('GET', '/instances')).json().items.map((i: Instance) => i.name)).toEqual(['orders']);
  });
});

describe('proving the window', () => {
  it('drills a restore to a random moment of the window into a throwaway copy, and verifies the repository', async () => {
    const drill = await world.call('POST', `/instances/${source.id}/pitr/drill`, {});
    expect(drill.statusCode).toBe(202);
    expect(drill.json()).toMatchObject({ checking: true });
    // Open pages hear that a drill runs, and later how it ended.
    await waitUntil(() => world.events('RecoveryWindowChanged').some((e) => e.instanceId === source.id && e.window.checking === true));
    expect((await world.call('POST', `/instances/${source.id}/pitr/verify`, {})).statusCode).toBe(409);
    await world.app().pointInTime.idle();
    const verify = await world.call('POST', `/instances/${source.id}/pitr/verify`, {});
    expect(verify.statusCode).toBe(202);
    await world.app().pointInTime.idle();

    const w = await window();
    expect(w.checking).toBe(false);
    expect(world.events('RecoveryWindowChanged').at(-1)).toMatchObject({ instanceId: source.id, window: { checking: false, lastVerify: { ok: true } } });
    expect(w.lastDrill).toMatchObject({ kind: 'drill', ok: true, backupId: w.backups[0].id, detail: expect.stringMatching(/database\(s\) answer queries\.$/) });
    expect(w.lastDrill!.recoverySeconds).toBeGreaterThan(0);
    expect(w.lastDrill!.targetTime! >= w.earliest!).toBe(true);
    expect(w.lastVerify).toMatchObject({ kind: 'verify', ok: true, detail: 'Every backup and WAL file of the repository matches its checksum.' });
    // The throwaway copy is gone, with its folder and its user's files.
    expect(fs.readdirSync(path.join(world.dataDir, 'instances')).filter((name) => /^\.(scratch|pitr)-/.test(name))).toEqual([]);
    // The next plan is estimated from the drill's pace.
    const plan = (await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'estimate', target: 'latest', dryRun: true })).json() as RestorePlan;
    expect(plan.estimatedSeconds).not.toBeNull();
  });
});

describe('restores to a point', () => {
  it('restores to one second before a table was dropped: every row committed before, nothing after', async () => {
    for (let i = 0; i < 12; i++) {
      await sql(source.id, 'insert into events default values', 'app');
      await sleep(100);
    }
    const written = await sql<{ id: number }>(source.id, 'select id from events order by id', 'app');
    await sleep(1500);
    const [{ now: droppedAt }] = await sql<{ now: Date }>(source.id, 'select clock_timestamp() as now');
    await sql(source.id, 'drop table events', 'app');
    await sql(source.id, 'create table after_the_drop (x int)', 'app');
    const target = new Date(droppedAt.getTime() - 1000);
    await archivedPast(new Date(droppedAt.getTime() + 100).toISOString());
    // The target written with an offset of +01:00: the same moment, read as written.
    const local = new Date(target.getTime() + 3600_000).toISOString().replace('Z', '+01:00');

    const dry = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'orders-before-drop', target: { time: local }, dryRun: true });
    expect(dry.statusCode).toBe(200);
    const plan = dry.json() as RestorePlan;
    expect(plan).toMatchObject({ targetTime: target.toISOString(), timeline: 1, backup: { kind: 'full' } });
    expect(plan.walSegments).toBeGreaterThanOrEqual(1);
    expect(plan.walBytes).toBe(plan.walSegments * 16 * 1024 * 1024);
    expect((await world.call('GET', '/instances')).json().total).toBe(1);

    const copy = await restored({ name: 'orders-before-drop', target: { time: local } });
    expect(await sql(copy.id, 'select id from events order by id', 'app')).toEqual(written);
    expect((await sql(copy.id, "select to_regclass('public.after_the_drop') as t", 'app'))[0].t).toBeNull();
    // Nothing of the source changed, and the copy archives into a repository of its own.
    expect((await sql(source.id, "select to_regclass('public.events') as t", 'app'))[0].t).toBeNull();
    expect(fs.existsSync(path.join(world.dataDir, 'pitr', copy.id))).toBe(true);
    const [audit] = await world.auditOf('instances.restoreToPoint');
    expect(JSON.parse(audit.detail!)).toMatchObject({ newInstanceId: copy.id, targetTime: target.toISOString() });
    // The new instance records where it came from, on a timeline of its own after promotion.
    const copyWindow = await window(copy.id);
    expect(copyWindow.restoredFrom).toMatchObject({ sourceId: source.id, sourceName: 'orders', target: { time: local }, backupId: plan.backup.id, timeline: 2 });
    expect(copyWindow.restoredFrom!.lastReplayedAt! <= target.toISOString()).toBe(true);
    expect(copyWindow.restoredFrom!.recoverySeconds).toBeGreaterThan(0);

    // Restored again, from the copy: its own repository, the timeline it promoted to, and on.
    await world.call('POST', `/instances/${copy.id}/backups/database/backup`, { kind: 'full' });
    await world.backups().idle();
    await sql(copy.id, 'insert into events default values', 'app');
    const [{ id: added }] = await sql<{ id: number }>(copy.id, 'select max(id) as id from events', 'app');
    const [{ now: afterInsert }] = await sql<{ now: Date }>(copy.id, 'select clock_timestamp() as now');
    await sql(copy.id, 'select pg_switch_wal()');
    for (let waited = 0; ((await window(copy.id)).latest ?? '') < afterInsert.toISOString() && waited < 60_000; waited += 500) await sleep(500);
    const res = await world.call('POST', `/instances/${copy.id}/restore-point`, { name: 'orders-second-generation', target: 'latest' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const second = await world.instance(res.json().id);
    expect(second.status).toBe('running');
    expect((await sql<{ id: number }>(second.id, 'select max(id) as id from events', 'app'))[0].id).toBe(added);
    expect((await window(second.id)).restoredFrom).toMatchObject({ sourceId: copy.id, timeline: 3 });
    // The source itself stays on its first timeline.
    expect((await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'plan-only', target: 'latest', dryRun: true })).json().timeline).toBe(1);
  });

  it('restores to a named restore point', async () => {
    await sql(source.id, 'create table marks (x int)', 'app');
    await sql(source.id, 'insert into marks values (1)', 'app');
    const marked = await world.call('POST', `/instances/${source.id}/restore-points`, { name: 'before the migration' });
    expect(marked.statusCode).toBe(201);
    const point = marked.json() as RestorePoint;
    expect(point).toMatchObject({ name: 'before the migration', createdBy: 'admin@example.com' });
    await sql(source.id, 'insert into marks values (2)', 'app');
    await archivedPast(point.at);
    expect((await window()).restorePoints.map((p) => p.name)).toContain('before the migration');
    const again = await world.call('POST', `/instances/${source.id}/restore-points`, { name: 'before the migration' });
    expect(again.statusCode).toBe(400);

    const copy = await restored({ name: 'orders-marked', target: { name: 'before the migration' } });
    expect(copy.status).toBe('running');
    expect(await sql(copy.id, 'select x from marks order by x', 'app')).toEqual([{ x: 1 }]);
  });

  it('restores to the latest moment after the source lost its data folder: nothing archived is lost', async () => {
    await sql(source.id, 'create table latest_rows (x int)', 'app');
    await sql(source.id, 'insert into latest_rows select generate_series(1, 100)', 'app');
    const [{ now }] = await sql<{ now: Date }>(source.id, 'select clock_timestamp() as now');
    await archivedPast(now.toISOString());
    // The disk dies: the postmaster is killed and its data folder is gone.
    process.kill(await world.enginePid(source.id), 'SIGKILL');
    fs.rmSync(path.join(world.dataDir, 'instances', source.id, 'data'), { recursive: true, force: true });

    const res = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'orders-latest', target: 'latest' });
    expect(res.statusCode).toBe(202);
    // While the source's user restores it, no start of the source (by hand, or supervision's after
    // the crash) may end that user's processes.
    const start = await world.call('POST', `/instances/${source.id}/start`, {});
    expect(start.statusCode).toBe(409);
    expect(start.json().detail).toBe('Another operation is running on this instance: wait for it to finish.');
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy.status).toBe('running');
    expect(await sql(copy.id, 'select count(*)::int as n from latest_rows', 'app')).toEqual([{ n: 100 }]);
  });
});
