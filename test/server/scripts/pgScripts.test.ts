import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { ScriptRun, ScriptRunsPage, ScriptRunSummary } from '../../../contracts/scripts';
import { scriptLimits } from '../../../contracts/scripts';
import { addMembers, createGroup, updateGroup } from '../../../server/db/groups';
import { insertScriptRun } from '../../../server/db/scripts';
import { sandboxName } from '../../../server/scripts/sandbox';
import { expectProblem } from '../helpers';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Scripts on a real PostgreSQL 15 instance: every run happens in a sandbox made from a backup or a
// live copy, as the owner role, and the instance itself is never touched. One instance for the file.

jest.setTimeout(300_000);

let world: InstanceWorld;
let shop: Instance;
let groupId: string;
let older: Backup;
let member: string;
let outsider: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(25);
  }
}

async function asOwner<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const { password } = (await world.call('POST', `/instances/${shop.id}/connection/secret`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: shop.port, user: 'app', database: 'app', password });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function takeBackup(): Promise<Backup> {
  const res = await world.call('POST', `/instances/${shop.id}/backups/database/backup`, {});
  expect(res.statusCode).toBe(202);
  await world.backups().idle();
  return (await world.backups().find(res.json().id))!;
}

/** Starts a run and waits for its end. */
async function run(body: Record<string, unknown>): Promise<ScriptRun> {
  const started = await world.call('POST', `/instances/${shop.id}/script`, body);
  expect(started.statusCode).toBe(202);
  await world.app().scripts.idle();
  return (await world.call('GET', `/instances/${shop.id}/script/runs/${started.json().id}`)).json() as ScriptRun;
}

const instancesDir = () => path.join(world.dataDir, 'instances');
const sandboxDir = (runId: string) => path.join(instancesDir(), `.scratch-pg-${sandboxName(runId)}`);
const leftovers = () => fs.readdirSync(instancesDir()).filter((name) => name.startsWith('.') && name !== '.limits');

/**
 * Process ids working in `dir` (from /proc): PostgreSQL's server processes all run in their data folder.
 * Matched by folder, not by user id: a removed user's id is soon another user's.
 */
function processesIn(dir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(`${dir}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Starts a long run and answers it with its sandbox's folder once its statement runs. */
async function startSleeping(body: Record<string, unknown>): Promise<{ runId: string; dir: string }> {
  const started = await world.call('POST', `/instances/${shop.id}/script`, { script: 'select 1;\nselect pg_sleep(60)', ...body });
  expect(started.statusCode).toBe(202);
  const runId = started.json().id as string;
  const dir = sandboxDir(runId);
  await until('the sandbox folder', () => fs.existsSync(dir));
  await until('the sleeping statement', async () => {
    const current = (await world.call('GET', `/instances/${shop.id}/script/runs/${runId}`)).json() as ScriptRun;
    return current.progress?.statement === 2;
  });
  expect(processesIn(dir).length).toBeGreaterThan(0);
  return { runId, dir };
}

/** The relation files of the instance's databases, with size and modification time. */
function relationFiles(): Record<string, string> {
  const base = path.join(instancesDir(), shop.id, 'data', 'base');
  const listing: Record<string, string> = {};
  for (const entry of fs.readdirSync(base, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/^\d+(_\w+)?(\.\d+)?$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stat = fs.statSync(file);
    listing[path.relative(base, file)] = `${stat.size}@${stat.mtimeMs}`;
  }
  return listing;
}

beforeAll(async () => {
  world = await instanceWorld();
  const group = await createGroup(world.db, { name: 'shop-team' }, new Date());
  groupId = group.id;
  member = await world.cookieFor('member@example.com');
  outsider = await world.cookieFor('outsider@example.com');
  const memberId = (await world.db.selectFrom('users').select('id').where('email', '=', 'member@example.com').executeTakeFirstOrThrow()).id;
  await addMembers(world.db, groupId, [memberId], new Date());
  const res = await world.call('POST', '/instances', { name: 'shop', type: 'pg', groupId });
  await world.service().idle();
  shop = await world.instance(res.json().id);
  await asOwner(async (c) => {
    await c.query('create table items (id int primary key, name text)');
    await c.query("insert into items select g, 'item ' || g from generate_series(1, 100) g");
  });
  older = await takeBackup();
  await asOwner((c) => c.query("insert into items select g, 'item ' || g from generate_series(101, 150) g"));
  await takeBackup();
  // Nothing left for autovacuum or a checkpoint to write to the tables' files later.
  await asOwner((c) => c.query('vacuum analyze items'));
});

afterAll(async () => {
  await world.destroy();
});

describe('running a SQL script', () => {
  it('runs in a sandbox from the newest backup, shows rows and changes, and leaves the instance and its files untouched', async () => {
    const filesBefore = relationFiles();
    const result = await run({
      script: [
        'create table fresh (id int, note text);',
        "insert into fresh select g, 'n' || g from generate_series(1, 5) g;",
        'select * from fresh order by id;',
        'select count(*) as n from items;',
        "do $$ begin raise notice 'hello; there'; end $$;",
        'select g from generate_series(1, 1500) g',
      ].join('\n'),
    });
    expect(result).toMatchObject({ status: 'succeeded', ok: true, phase: 'finished', source: 'latest-backup', copiedFrom: 'backup', statements: 6, failures: 0 });
    expect(result.results.map((r) => [r.line, r.command, r.rowCount])).toEqual([
      [1, 'CREATE TABLE', null],
      [2, 'INSERT', 5],
      [3, 'SELECT', 5],
      [4, 'SELECT', 1],
      [5, 'DO', null],
      [6, 'SELECT', 1500],
    ]);
    // Notices go with their statement; rows past the cap are counted, not kept.
    expect(result.results[4].notices).toEqual([{ severity: 'NOTICE', message: 'hello; there', code: '00000' }]);
    expect(result.results[5]).toMatchObject({ rowCount: 1500, truncated: true });
    expect(result.results[5].rows).toHaveLength(scriptLimits.maxRows);
    expect(result.results[2].columns).toEqual([
      { name: 'id', type: 'int4' },
      { name: 'note', type: 'text' },
    ]);
    expect(result.results[2].rows).toEqual([['1', 'n1'], ['2', 'n2'], ['3', 'n3'], ['4', 'n4'], ['5', 'n5']]);
    // The newest backup holds all 150 items.
    expect(result.results[3].rows).toEqual([['150']]);
    expect(result.changes).toEqual([
      { table: 'public.fresh', before: 0, after: 5 },
      { table: 'public.items', before: 150, after: 150 },
    ]);
    expect(relationFiles()).toEqual(filesBefore);
    expect(await asOwner(async (c) => (await c.query("select to_regclass('public.fresh') as t")).rows[0].t)).toBeNull();
    expect(leftovers()).toEqual([]);
    const phases = world.events('ScriptRunUpdated').filter((e) => e.run.id === result.id).map((e) => e.run.phase);
    expect([...new Set(phases)]).toEqual(['queued', 'preparing', 'starting', 'running', 'cleaning', 'finished']);
  });

  it('stops at the first error and points at its statement, line, SQLSTATE and position', async () => {
    const result = await run({ script: 'select 1;\nselect id\n  from missing_table;\nselect 3;' });
    expect(result).toMatchObject({ status: 'failed', ok: false, failures: 1 });
    expect(result.results).toHaveLength(2);
    const failed = result.results[1];
    expect(failed.line).toBe(2);
    expect(failed.error).toMatchObject({ code: '42P01', line: 3, message: expect.stringMatching(/missing_table/) });
    expect(failed.error!.position).toBe('select id\n  from missing_table'.indexOf('missing_table') + 1);
  });

  it('runs every statement with continueOnError, as the owner role: no COPY TO PROGRAM, no ALTER SYSTEM', async () => {
    const result = await run({
      script: "COPY (select 1) TO PROGRAM 'id';\nALTER SYSTEM SET work_mem = '1MB';\nselect current_user, (select rolsuper from pg_roles where rolname = current_user)::text",
      continueOnError: true,
    });
    expect(result.status).toBe('failed');
    expect(result.results.map((r) => r.error?.code ?? null)).toEqual(['42501', '42501', null]);
    expect(result.results[2].rows).toEqual([['app', 'false']]);
  });

  it('runs on a chosen older backup with that backup’s data', async () => {
    const result = await run({ script: 'select count(*) from items;\ndelete from items where id <= 10', source: older.id });
    expect(result).toMatchObject({ status: 'succeeded', copiedFrom: 'backup', backupId: older.id });
    expect(result.results[0].rows).toEqual([['100']]);
    expect(result.changes).toEqual([{ table: 'public.items', before: 100, after: 90 }]);
  });

  it('runs on a live copy of the current data', async () => {
    await asOwner((c) => c.query("insert into items values (151, 'live only')"));
    const result = await run({ script: "select name from items where id = 151", source: 'live' });
    expect(result).toMatchObject({ status: 'succeeded', copiedFrom: 'live', backupId: null });
    expect(result.results[0].rows).toEqual([['live only']]);
  });

  it('refuses a backup of another instance or a missing one', async () => {
    expectProblem(await world.call('POST', `/instances/${shop.id}/script`, { script: 'select 1', source: 'no-such-backup' }), 404);
  });

  it('ends a run past its timeout: the statement is cancelled, no process and no folder stay', async () => {
    const { runId, dir } = await startSleeping({ timeoutMs: 3000 });
    await world.app().scripts.idle();
    const result = (await world.call('GET', `/instances/${shop.id}/script/runs/${runId}`)).json() as ScriptRun;
    expect(result).toMatchObject({ status: 'failed', ok: false, error: expect.stringMatching(/timeout of 3 s/) });
    expect(result.results[1].error).toMatchObject({ code: '57014' });
    expect(processesIn(dir)).toEqual([]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('cancels on request and refuses a second run while one runs (409)', async () => {
    const { runId, dir } = await startSleeping({ source: 'live' });
    expectProblem(await world.call('POST', `/instances/${shop.id}/script`, { script: 'select 1' }), 409);
    const cancelled = await world.call('POST', `/instances/${shop.id}/script/runs/${runId}/cancel`, {});
    expect(cancelled.statusCode).toBe(202);
    await world.app().scripts.idle();
    const result = (await world.call('GET', `/instances/${shop.id}/script/runs/${runId}`)).json() as ScriptRun;
    expect(result).toMatchObject({ status: 'cancelled', ok: false, phase: 'finished' });
    expect(result.results[1].error).toMatchObject({ code: '57014' });
    expect(processesIn(dir)).toEqual([]);
    expect(leftovers()).toEqual([]);
    expectProblem(await world.call('POST', `/instances/${shop.id}/script/runs/${runId}/cancel`, {}), 409);
  });

  it('counts the sandbox against the group quota (409 naming it)', async () => {
    await updateGroup(world.db, groupId, { name: 'shop-team', quota: { maxInstances: 1, maxBackupBytes: null } });
    try {
      const refused = expectProblem(await world.call('POST', `/instances/${shop.id}/script`, { script: 'select 1' }), 409);
      expect(refused.detail).toMatch(/group 'shop-team' has reached its quota of 1 instance/);
    } finally {
      await updateGroup(world.db, groupId, { name: 'shop-team', quota: { maxInstances: null, maxBackupBytes: null } });
    }
  });

  it('lists the runs newest first with who, source and outcome', async () => {
    const page = (await world.call('GET', `/instances/${shop.id}/script/runs?pageSize=3`)).json() as ScriptRunsPage;
    expect(page.total).toBe(7);
    expect(page.items).toHaveLength(3);
    const [newest] = page.items as ScriptRunSummary[];
    expect(newest).toMatchObject({ status: 'cancelled', source: 'live', createdBy: 'admin@example.com' });
    expect(newest).not.toHaveProperty('results');
  });
});

describe('the saved script', () => {
  it('is saved, read back, run when the request holds none, and audited', async () => {
    const saved = await world.call('PUT', `/instances/${shop.id}/script`, { script: 'select 42 as answer' }, member);
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ script: 'select 42 as answer', updatedBy: 'member@example.com' });
    expect((await world.call('GET', `/instances/${shop.id}/script`, undefined, member)).json().script).toBe('select 42 as answer');
    const result = await run({});
    expect(result.results[0].rows).toEqual([['42']]);
    const audit = await world.db.selectFrom('audit_entries').select(['action', 'outcome']).where('action', 'like', 'scripts.%').execute();
    expect(audit).toEqual(expect.arrayContaining([{ action: 'scripts.save', outcome: 'success' }, { action: 'scripts.run', outcome: 'success' }]));
  });

  it('refuses a script over 1 MB with 413', async () => {
    const big = 'x'.repeat(scriptLimits.maxScriptBytes + 1);
    expectProblem(await world.call('PUT', `/instances/${shop.id}/script`, { script: big }), 413);
    expectProblem(await world.call('POST', `/instances/${shop.id}/script`, { script: big }), 413);
    // Bytes, not characters: 400 000 three-byte characters are over the limit.
    expectProblem(await world.call('PUT', `/instances/${shop.id}/script`, { script: '€'.repeat(400_000) }), 413);
  });

  it('is another group’s instance to outsiders: 404 everywhere', async () => {
    const latest = ((await world.call('GET', `/instances/${shop.id}/script/runs`)).json() as ScriptRunsPage).items[0];
    expectProblem(await world.call('GET', `/instances/${shop.id}/script`, undefined, outsider), 404);
    expectProblem(await world.call('PUT', `/instances/${shop.id}/script`, { script: 'drop table items' }, outsider), 404);
    expectProblem(await world.call('POST', `/instances/${shop.id}/script`, { script: 'select 1' }, outsider), 404);
    expectProblem(await world.call('GET', `/instances/${shop.id}/script/runs/${latest.id}`, undefined, outsider), 404);
    expect((await world.call('GET', `/instances/${shop.id}/script/runs/${latest.id}`, undefined, member)).statusCode).toBe(200);
  });
});

describe('after a crash', () => {
  it('removes a sandbox the stopped server left and marks its run failed at the next start', async () => {
    const { rt } = await world.service().scratch('pg', 'crashed-run', null);
    const engine = world.service().engine('pg');
    await engine.initialize(rt);
    await engine.start(rt);
    expect(processesIn(rt.dir).length).toBeGreaterThan(0);
    await insertScriptRun(world.db, {
      id: 'crashed-run', instance_id: shop.id, status: 'running', phase: 'running', source: 'live', copied_from: 'live', backup_id: null,
      script: 'select 1', continue_on_error: 0, timeout_ms: 60_000, started_at: new Date().toISOString(), finished_at: null, ok: null,
      created_by: null, statements: 1, failures: 0, error: null, results: null, changes: null,
    });
    await world.restartServer();
    expect(fs.existsSync(rt.dir)).toBe(false);
    expect(processesIn(rt.dir)).toEqual([]);
    const result = (await world.call('GET', `/instances/${shop.id}/script/runs/crashed-run`)).json() as ScriptRun;
    expect(result).toMatchObject({ status: 'failed', ok: false, error: expect.stringMatching(/server stopped/) });
  });
});
