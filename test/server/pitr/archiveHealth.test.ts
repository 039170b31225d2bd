import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryWindow } from '../../../contracts/pitr';
import { findInstanceRow } from '../../../server/db/instances';
import type { PgEngine } from '../../../server/engines/pg';
import { instanceWorld, type InstanceWorld } from '../instances/world';
import { superuserSql } from './superuserSql';

// What an operator is told about the archive: health turns to error when WAL cannot be archived and
// back when it can, with nothing lost; the archive timeout is theirs to set within bounds and reaches
// the running server; and every call is scoped to the instance's group, a restore into the caller's
// own groups. One instance for the file.

jest.setTimeout(300_000);

let world: InstanceWorld;
let source: Instance;
let member: { groupId: string; cookie: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sql = superuserSql(() => world);

/** What the instance's log says of its archive, oldest first. */
async function pitrLog(): Promise<string[]> {
  const rows = await world.db.selectFrom('logs').select(['message']).where('instance_id', '=', source.id).where('handler', '=', 'pitr').orderBy('id').execute();
  return rows.map((r) => r.message);
}

/** The archiving check of a fresh probe. */
async function archiving() {
  await world.service().refresh(source.id);
  return (await world.instance(source.id)).health.checks.find((c) => c.name === 'archiving');
}

beforeAll(async () => {
  world = await instanceWorld({ pitr: true });
  member = await world.groupWithMember('ledgers', 'member@example.com');
  source = await world.created({ name: 'ledger', type: 'pg', groupId: member.groupId });
  await world.call('POST', `/instances/${source.id}/backups/database/backup`, { kind: 'full' });
  await world.backups().idle();
});

afterAll(() => world?.destroy());

it('turns health to error while WAL cannot be archived, and back once it can, losing nothing', async () => {
  expect(await archiving()).toEqual({ name: 'archiving', level: 'good', message: 'WAL is archived' });
  const repo = path.join(world.dataDir, 'pitr', source.id);
  // The repository turns read-only for its owner, as a full or failing disk would.
  execFileSync('chmod', ['-R', 'u-w', repo]);
  try {
    await sql(source.id, 'create table during_the_outage as select generate_series(1, 50) as n');
    await sql(source.id, 'select pg_switch_wal()');
    let check = await archiving();
    for (let waited = 0; check?.level !== 'error' && waited < 120_000; waited += 2000) {
      await sleep(2000);
      check = await archiving();
    }
    expect(check).toMatchObject({ level: 'error', message: expect.stringMatching(/^archiving WAL fails \(segment [0-9A-F]{24}\)/) });
    // Still serving: an instance whose archive fails is not down, and nothing restarts it.
    expect(await world.instance(source.id)).toMatchObject({ status: 'running', health: { level: 'error' } });
    await world.app().pointInTime.tick();
    expect(await pitrLog()).toContainEqual(expect.stringMatching(/^Archiving WAL fails \(segment [0-9A-F]{24}\): the recoverable window stops growing/));
    const window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
    expect(window.reason).toMatch(/^Archiving WAL fails since /);
  } finally {
    execFileSync('chmod', ['-R', 'u+w', repo]);
  }
  let check = await archiving();
  for (let waited = 0; check?.level !== 'good' && waited < 120_000; waited += 2000) {
    await sleep(2000);
    check = await archiving();
  }
  expect(check?.level).toBe('good');
  await world.app().pointInTime.tick();
  expect((await pitrLog()).at(-1)).toBe('Archiving WAL works again: the recoverable window grows.');
  const [{ now }] = await sql(source.id, 'select clock_timestamp() as now');
  await sql(source.id, 'select pg_switch_wal()');
  let window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  for (let waited = 0; window.latest! < (now as Date).toISOString() && waited < 60_000; waited += 500) {
    await sleep(500);
    window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  }
  expect(window.gaps).toEqual([]);
  expect(window.reason).toBeNull();
  const res = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'ledger-after-outage', target: 'latest' });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  const copy = await world.instance(res.json().id);
  expect(copy.status).toBe('running');
  expect(await sql(copy.id, 'select count(*)::int as n from during_the_outage')).toEqual([{ n: 50 }]);
  await world.call('POST', `/instances/${copy.id}/stop`, {});
  await world.service().idle();
});

it('sets the archive timeout within 10 s and 10 min, and the running server takes it at once', async () => {
  const refused = await world.call('PUT', `/instances/${source.id}/pitr/settings`, { archiveTimeoutSeconds: 5, retentionDays: 7 });
  expect(refused.statusCode).toBe(400);
  expect(refused.json().errors).toHaveProperty('archiveTimeoutSeconds');
  expect((await world.call('PUT', `/instances/${source.id}/pitr/settings`, { archiveTimeoutSeconds: 60, retentionDays: 36 })).statusCode).toBe(400);

  const saved = await world.call('PUT', `/instances/${source.id}/pitr/settings`, { archiveTimeoutSeconds: 15, retentionDays: 3 });
  expect(saved.statusCode).toBe(200);
  expect(saved.json()).toEqual({ archiveTimeoutSeconds: 15, retentionDays: 3 });
  let timeout = '';
  for (let waited = 0; timeout !== '15s' && waited < 5000; waited += 200) {
    await sleep(200);
    [{ archive_timeout: timeout }] = (await sql(source.id, 'show archive_timeout')) as { archive_timeout: string }[];
  }
  expect(timeout).toBe('15s');
  const window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  expect(window).toMatchObject({ archiveTimeoutSeconds: 15, retentionDays: 3 });
  const conf = fs.readFileSync(path.join(world.dataDir, 'instances', source.id, 'pgbackrest.conf'), 'utf8');
  expect(conf).toMatch(/^repo1-retention-full=3$/m);
  // A tenant cannot move archiving elsewhere: archive_command stays Warden's.
  const tenant = await world.call('PUT', `/instances/${source.id}/config`, { parameters: { archive_command: 'cp %p /tmp/%f' } }, member.cookie);
  expect(tenant.statusCode).toBe(400);
});

it('is scoped: an outsider sees nothing, a member restores only into their own groups', async () => {
  const outsider = await world.cookieFor('outsider@example.com');
  expect((await world.call('GET', `/instances/${source.id}/recovery-window`, undefined, outsider)).statusCode).toBe(404);
  expect((await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'stolen', target: 'latest' }, outsider)).statusCode).toBe(404);
  expect((await world.call('POST', `/instances/${source.id}/restore-points`, { name: 'mine' }, outsider)).statusCode).toBe(404);

  expect((await world.call('GET', `/instances/${source.id}/recovery-window`, undefined, member.cookie)).statusCode).toBe(200);
  const other = await world.groupWithMember('others', 'other@example.com');
  const elsewhere = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'moved-away', target: 'latest', groupId: other.groupId }, member.cookie);
  expect(elsewhere.statusCode).toBe(400);
  expect(elsewhere.json().errors).toEqual({ groupId: [`No group has the id ${other.groupId}.`] });
  const plan = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'planned', target: 'latest', dryRun: true }, member.cookie);
  expect(plan.statusCode).toBe(200);
  expect((await world.call('GET', '/instances', undefined, member.cookie)).json().items.map((i: Instance) => i.name)).not.toContain('planned');
});

it('moves the window when a backup set expires, drops it from the list, and still restores inside the window', async () => {
  const before = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  await world.call('POST', `/instances/${source.id}/backups/database/backup`, { kind: 'full' });
  await world.backups().idle();
  const both = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  expect(both.backups).toHaveLength(2);
  const [older, newer] = both.backups;
  // pgBackRest's expiry, as the window's retention runs it once the older set leaves the window.
  const row = (await findInstanceRow(world.db, source.id))!;
  const engine = world.app().instances.engine('pg') as PgEngine;
  await engine.archive!.command(world.service().runtime(row), ['expire', `--set=${older.id}`]);

  const after = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  expect(after.backups.map((b) => b.id)).toEqual([newer.id]);
  expect(after.earliest).toBe(newer.finishedAt);
  expect(after.earliest! > before.earliest!).toBe(true);
  const listed = (await world.call('GET', `/instances/${source.id}/backups/database`)).json().items as { contents: { physical?: { label: string } } }[];
  expect(listed.map((b) => b.contents.physical?.label)).toEqual([newer.id]);
  expect(world.events('BackupDeleted').length).toBeGreaterThanOrEqual(1);
  // Before the window now: refused, naming the new window.
  const early = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'too-early', target: { time: older.finishedAt }, dryRun: true });
  expect(early.statusCode).toBe(400);
  const inside = await world.call('POST', `/instances/${source.id}/restore-point`, { name: 'inside', target: 'latest', dryRun: true });
  expect(inside.statusCode).toBe(200);
  expect(inside.json().backup.id).toBe(newer.id);
});

it('takes a differential backup on a physical schedule when a full one is less than a week old', async () => {
  const saved = await world.call('PUT', `/instances/${source.id}/backups/schedule`, { enabled: true, cron: '* * * * *', timeZone: 'UTC', keepLast: null, keepDays: null, method: 'physical' });
  expect(saved.statusCode).toBe(200);
  expect(saved.json()).toMatchObject({ method: 'physical' });
  // The schedule took effect two minutes ago: a slot is due.
  await world.db.updateTable('backup_schedules').set({ updated_at: new Date(Date.now() - 120_000).toISOString() }).where('instance_id', '=', source.id).execute();
  await world.backups().tick();
  await world.backups().idle();
  const listed = (await world.call('GET', `/instances/${source.id}/backups/database`)).json().items as { format: string; trigger: string; status: string }[];
  expect(listed[0]).toMatchObject({ format: 'pgBackRest diff', trigger: 'schedule', status: 'succeeded' });
  const window = (await world.call('GET', `/instances/${source.id}/recovery-window`)).json() as RecoveryWindow;
  expect(window.backups.at(-1)).toMatchObject({ kind: 'diff' });
  expect(window.backups.at(-1)!.dependsOn.length).toBeGreaterThanOrEqual(1);
});
