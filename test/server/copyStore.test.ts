import { createHash, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { recordAudit } from '../../server/db/audit';
import { insertBackup, saveSchedule } from '../../server/db/backups';
import { copyStore } from '../../server/db/copyStore';
import { addMembers, createGroup } from '../../server/db/groups';
import { insertInstance } from '../../server/db/instances';
import { enqueue } from '../../server/hosts/hostQueue';
import { registerHost } from '../../server/hosts/hostStore';
import { recordFailure } from '../../server/db/loginFailures';
import { insertLogEntries, logSize, offsetStore, queryLogPage, removeLogs } from '../../server/db/logs';
import { insertSamples, seriesIdOf, setMeasuredSize } from '../../server/db/metrics';
import { migrateToLatest } from '../../server/db/migrations';
import { openDb } from '../../server/db/open';
import { insertOutboxMessage } from '../../server/db/outbox';
import { insertPointRestore, insertRecoveryCheck, insertRestorePoint } from '../../server/db/pitr';
import { openPostgresStore } from '../../server/db/postgresStore';
import { replaceRecoveryCodes } from '../../server/db/recoveryCodes';
import type { Database, Db } from '../../server/db/schema';
import { insertScriptRun, saveScript } from '../../server/db/scripts';
import { insertSession } from '../../server/db/sessions';
import { insertToken } from '../../server/db/tokens';
import { createUser, recordSuccess, setDisabled, setTwoFactor, useTwoFactorStep } from '../../server/db/users';
import { recordRevision } from '../../server/instances/revisions';
import { goodPassword } from './helpers';
import { startStoreServer, type StoreServer } from './storeServer';

// Moving from the embedded store to PostgreSQL: `npm run admin -- migrate-store --to postgres://…`
// copies a store filled as a running Warden fills it, and the copy is the same store.

/** Every table of the store but log_totals, which each store keeps itself, and rate_limits (the last minute's counts). */
const copiedTables: (keyof Database)[] = [
  'users', 'sessions', 'tokens', 'recovery_codes', 'login_failures', 'audit_entries', 'outbox', 'groups', 'group_members',
  'hosts', 'instances', 'host_operations', 'config_revisions', 'backups', 'backup_schedules', 'scripts', 'script_runs', 'metric_series', 'metric_samples',
  'restore_points', 'point_restores', 'recovery_checks', 'logs', 'log_offsets', 'hub_payloads', 'shared_secrets',
];

const now = new Date('2030-01-02T03:04:05.678Z');
const iso = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let server: StoreServer;
let dataDir: string;
let source: Db;

async function asAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${server.baseUrl}postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server; answers its URL. */
async function newDatabase(name: string): Promise<string> {
  await asAdmin(`CREATE DATABASE ${name}`);
  return `${server.baseUrl}${name}`;
}

async function countRows(db: Db, table: keyof Database): Promise<number> {
  const { n } = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

async function countAll(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of copiedTables) counts[table] = await countRows(db, table);
  return counts;
}

/** A table's rows as plain values, in one order on either store; PostgreSQL's generated search column left out. */
async function rowsOf(db: Db, table: keyof Database): Promise<Record<string, unknown>[]> {
  const rows = (await db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
  return rows.map(({ search: _generated, ...row }) => row).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** The store of a server that has run for a while: accounts with two-factor, groups, instances, backups, logs, metrics. */
async function fill(db: Db): Promise<void> {
  const alice = await createUser(db, { email: 'alice@example.com', password: goodPassword, role: 'admin', emailConfirmed: true }, new Date(iso(86_400_000 * 30)));
  await setTwoFactor(db, alice.id, { enabled: true, secret: 'JBSWY3DPEHPK3PXP', keyChanged: true });
  await useTwoFactorStep(db, alice.id, 63_403_000);
  await recordSuccess(db, alice.id, new Date(iso(60_000)));
  await replaceRecoveryCodes(db, alice.id, ['a1b2c3', 'd4e5f6', 'g7h8i9'].map(sha256), now);
  const bob = await createUser(db, { email: 'bob@example.com', password: goodPassword, role: 'regular' }, new Date(iso(86_400_000 * 3)));
  await recordFailure(db, bob.id, '203.0.113.7', now);
  await recordFailure(db, bob.id, '203.0.113.7', now);
  const carol = await createUser(db, { email: 'carol@example.com', password: goodPassword, role: 'regular' }, new Date(iso(86_400_000)));
  await setDisabled(db, carol.id, true);

  await insertSession(db, {
    id: sha256('cookie-token'), user_id: alice.id, kind: 'cookie', persistent: 1, created_at: iso(3_600_000), expires_at: iso(-86_400_000 * 14),
    last_seen_at: iso(60_000), user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', ip: '198.51.100.4', family_id: null, consumed_at: null,
  });
  const family = sha256('refresh-1');
  await insertSession(db, {
    id: family, user_id: bob.id, kind: 'refresh', persistent: 0, created_at: iso(7_200_000), expires_at: iso(-86_400_000),
    last_seen_at: iso(3_600_000), user_agent: 'warden-cli/0.1.0', ip: null, family_id: family, consumed_at: iso(3_600_000),
  });
  await insertSession(db, {
    id: sha256('access-2'), user_id: bob.id, kind: 'access', persistent: 0, created_at: iso(3_600_000), expires_at: iso(-3_600_000),
    last_seen_at: iso(3_600_000), user_agent: 'warden-cli/0.1.0', ip: null, family_id: family, consumed_at: null,
  });
  await insertToken(db, {
    id: randomUUID(), user_id: bob.id, purpose: 'confirm', hash: sha256('123456'), email: 'bob@example.com', stamp: randomUUID(),
    created_at: iso(86_400_000 * 3), expires_at: iso(86_400_000 * 2), used_at: null,
  });
  await insertOutboxMessage(db, { id: randomUUID(), at: new Date(iso(86_400_000 * 3)), to: 'bob@example.com', subject: 'Confirm your e-mail', text: 'Your code is 123456.' });

  const payments = await createGroup(db, {
    name: 'Payments', description: 'Card processing',
    // A tebibyte of memory and 50 GiB of backups: beyond 32 bits.
    quota: { maxInstances: 5, maxBackupBytes: 50 * 2 ** 30 },
    limits: { maxProcesses: 200, maxOpenFiles: 4096, maxMemoryBytes: 2 ** 40 },
  }, new Date(iso(86_400_000 * 20)));
  await createGroup(db, { name: 'Search' }, new Date(iso(86_400_000 * 10)));
  await addMembers(db, payments.id, [alice.id, bob.id], new Date(iso(86_400_000 * 2)));

  const orders = randomUUID();
  const restored = randomUUID();
  const etcd = randomUUID();
  const { host } = await registerHost(db, { name: 'db-1', address: '10.0.0.1', cores: 8, memoryBytes: 32 * 2 ** 30, diskFreeBytes: 2 ** 40, ports: { from: 23000, to: 23999 }, agentVersion: '1.0.0', heartbeatMs: 4000 }, new Date(iso(3_600_000)));
  const instance = { status_reason: null, health_level: 'good' as const, health_checks: '[]', engine_version: '15.8', peer_port: null, description: '', last_backup_at: null, operation_kind: null, operation_started_at: null, host_id: host.id };
  await insertInstance(db, { ...instance, id: orders, name: 'orders', type: 'pg', status: 'running', desired_state: 'running', group_id: payments.id, port: 23001, created_at: iso(86_400_000 * 19), created_by: alice.id, description: 'Orders of the shop', last_backup_at: iso(3_600_000) });
  await insertInstance(db, { ...instance, id: restored, name: 'orders-before-migration', type: 'pg', status: 'stopped', desired_state: 'stopped', group_id: payments.id, port: 23002, created_at: iso(86_400_000), created_by: bob.id });
  await insertInstance(db, {
    ...instance, id: etcd, name: 'config', type: 'etcd', status: 'running', desired_state: 'running', group_id: null, engine_version: '3.5.16', port: 23379, peer_port: 23380,
    member_ports: JSON.stringify([{ port: 23381, peerPort: 23382 }, { port: 23383, peerPort: 23384 }]), created_at: iso(86_400_000 * 5), created_by: alice.id,
    health_level: 'warn', health_checks: JSON.stringify([{ name: 'members', level: 'warn', message: '2 of 3 members answer' }]),
  });
  await enqueue(db, { hostId: host.id, instanceId: restored, kind: 'start' }, new Date(iso(60_000)));
  await recordRevision(db, orders, alice.id, new Date(iso(86_400_000 * 4)), { work_mem: '64MB' }, { work_mem: '4MB' });
  await recordRevision(db, orders, bob.id, new Date(iso(86_400_000 * 2)), { max_connections: '200' }, {});

  const backup = {
    instance_id: orders, instance_name: 'orders', engine: 'pg' as const, format: 'pg_dump-custom', engine_version: '15.8', error: null,
    contents: JSON.stringify({ databases: [{ name: 'shop', tables: 42 }] }), verification: null, created_by: alice.id,
  };
  await insertBackup(db, { ...backup, id: randomUUID(), kind: 'database', trigger: 'schedule', status: 'succeeded', started_at: iso(3_700_000), finished_at: iso(3_600_000), size_bytes: 5 * 2 ** 30, sha256: sha256('dump'), storage_key: 'orders/1.dump', pinned: 1 });
  await insertBackup(db, { ...backup, id: randomUUID(), kind: 'file', trigger: 'manual', status: 'failed', started_at: iso(7_200_000), finished_at: iso(7_100_000), size_bytes: null, sha256: null, storage_key: null, error: 'No space left on device', contents: null });
  await saveSchedule(db, { instance_id: orders, enabled: 1, cron: '0 3 * * *', time_zone: 'Europe/Berlin', keep_last: 7, keep_days: null, include_manual: 1, method: 'physical', last_run_at: iso(3_700_000), updated_at: iso(86_400_000 * 6) });

  await saveScript(db, orders, 'select count(*) from orders;', iso(600_000), alice.id);
  await insertScriptRun(db, {
    id: randomUUID(), instance_id: orders, status: 'succeeded', phase: 'finished', source: 'backup', copied_from: 'backup', backup_id: null,
    script: 'select count(*) from orders;', continue_on_error: 0, timeout_ms: 60_000, started_at: iso(500_000), finished_at: iso(499_000), ok: 1,
    created_by: alice.id, statements: 1, failures: 0, error: null, results: JSON.stringify([{ statement: 1, rows: [['1234']] }]), changes: '[]',
  });
  await insertRestorePoint(db, { instance_id: orders, name: 'before-migration', lsn: '0/3000028', at: iso(86_400_000 * 2), created_by: alice.id });
  await insertPointRestore(db, {
    instance_id: restored, source_id: orders, source_name: 'orders', target: JSON.stringify({ kind: 'point', name: 'before-migration' }), backup_id: randomUUID(),
    last_replayed_at: iso(86_400_000 * 2), timeline: 2, recovery_ms: 8_200, wal_bytes: 6 * 2 ** 30, created_at: iso(86_400_000),
  });
  await insertRecoveryCheck(db, { id: randomUUID(), instance_id: orders, kind: 'drill', at: iso(86_400_000), ok: 1, target_time: iso(86_400_000 * 2), backup_id: null, recovery_ms: 9_100, wal_bytes: 2 ** 33, detail: 'Restored and queried.' });

  for (const id of [orders, etcd]) {
    const series = await seriesIdOf(db, id);
    await setMeasuredSize(db, series, 3 * 2 ** 30 + series);
    await insertSamples(db, Array.from({ length: 30 }, (_, i) => ({ seriesId: series, resolution: 0, at: now.getTime() - i * 15_000, data: JSON.stringify([i, 0.5 * i, null]) })));
    await insertSamples(db, [{ seriesId: series, resolution: 1, at: now.getTime() - 60_000, data: '[1,2,3]' }]);
  }
  await offsetStore(db, orders).set('/var/lib/warden/instances/orders/log/postgresql.log', 1_234_567);

  // More entries than one batch holds, in every scope, and a gap in the ids where some were removed.
  await insertLogEntries(db, Array.from({ length: 1_300 }, (_, i) => ({
    timestamp: iso((1_300 - i) * 1_000),
    level: i % 50 === 0 ? ('error' as const) : ('information' as const),
    instanceId: i % 3 === 0 ? null : i % 3 === 1 ? orders : etcd,
    handler: i % 3 === 0 ? 'http' : 'engine',
    message: i % 100 === 7 ? `checkpoint complete: wrote ${i} buffers (purge)` : `connection received: host=10.0.0.${i % 250} port=${40_000 + i} café`,
    properties: { requestId: randomUUID(), attempt: i },
  })));
  await removeLogs(db, { scope: { kind: 'all' }, search: ['purge'] });
  await insertLogEntries(db, [{ timestamp: iso(500), level: 'warning', instanceId: orders, handler: 'engine', message: 'Quokka sighting near the WAL archive', properties: { segment: '000000010000000000000003' } }]);
  await recordAudit(db, { at: new Date(iso(60_000)), userId: alice.id, action: 'auth.login', target: 'alice@example.com', outcome: 'success', detail: { method: 'totp' }, ip: '198.51.100.4' });
  await recordAudit(db, { at: new Date(iso(30_000)), userId: null, action: 'auth.login', target: 'mallory@example.com', outcome: 'failure', ip: '192.0.2.66' });
}

beforeAll(async () => {
  server = await startStoreServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-copy-'));
  source = openDb({ dataDir });
  await migrateToLatest(source);
  await fill(source);
}, 120_000);

afterAll(async () => {
  await source?.destroy();
  server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('copyStore into a fresh PostgreSQL database', () => {
  let target: Db;
  let copied: Array<{ table: string; rows: number }>;
  const reported: string[] = [];

  beforeAll(async () => {
    target = openPostgresStore(await newDatabase('copy_fresh'));
    copied = await copyStore(source, target, (table, rows) => reported.push(`${table} ${rows}`));
  }, 60_000);
  afterAll(() => target?.destroy());

  it('copies every table, reports each as copied, and the counts match the source', async () => {
    expect(copied.map((c) => c.table).sort()).toEqual([...copiedTables].sort());
    expect(reported).toEqual(copied.map((c) => `${c.table} ${c.rows}`));
    // The store was filled in every table, so every table is put to the test; only servers sharing a
    // PostgreSQL store write hub_payloads and shared_secrets.
    expect(copied.filter((c) => c.rows === 0).map((c) => c.table)).toEqual(['hub_payloads', 'shared_secrets']);
    const sourceCounts = await countAll(source);
    expect(Object.fromEntries(copied.map((c) => [c.table, c.rows]))).toEqual(sourceCounts);
    expect(await countAll(target)).toEqual(sourceCounts);
    expect(sourceCounts.logs).toBeGreaterThan(1_000);
  });

  it('copies every row as it was: ids, timestamps, flags, JSON and large numbers', async () => {
    for (const table of copiedTables) expect({ table, rows: await rowsOf(target, table) }).toEqual({ table, rows: await rowsOf(source, table) });
    const alice = await target.selectFrom('users').selectAll().where('email', '=', 'alice@example.com').executeTakeFirstOrThrow();
    expect(alice).toMatchObject({ two_factor_enabled: 1, two_factor_secret: 'JBSWY3DPEHPK3PXP', two_factor_last_step: 63_403_000, email_confirmed: 1, last_login_at: iso(60_000) });
    const group = await target.selectFrom('groups').selectAll().where('name', '=', 'Payments').executeTakeFirstOrThrow();
    expect(group.max_memory_bytes).toBe(2 ** 40);
  });

  it('finds copied log entries by their words, and keeps the same log totals', async () => {
    const search = async (db: Db, word: string) =>
      (await queryLogPage(db, { scope: { kind: 'all' }, search: [word] }, { limit: 10, offset: 0, order: 'asc' })).items.map((e) => e.id);
    const found = await search(target, 'quokka');
    expect(found).toHaveLength(1);
    expect(found).toEqual(await search(source, 'quokka'));
    expect(await logSize(target, { kind: 'all' })).toEqual(await logSize(source, { kind: 'all' }));
    const totals = (db: Db) => db.selectFrom('log_totals').selectAll().where('entries', '>', 0).orderBy('scope').execute();
    expect(await totals(target)).toEqual(await totals(source));
  });

  it('gives new log entries and metric series ids above the copied ones', async () => {
    const highest = async (table: 'logs' | 'metric_series') => (await target.selectFrom(table).select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow()).id;
    const [lastLog, lastSeries] = [await highest('logs'), await highest('metric_series')];
    const [entry] = await insertLogEntries(target, [{ timestamp: now.toISOString(), level: 'information', instanceId: null, handler: 'http', message: 'first entry on PostgreSQL' }]);
    expect(entry.id).toBeGreaterThan(lastLog);
    const restored = await target.selectFrom('instances').select('id').where('name', '=', 'orders-before-migration').executeTakeFirstOrThrow();
    expect(await seriesIdOf(target, restored.id)).toBeGreaterThan(lastSeries);
  });

  it('refuses a second copy into the store now in use, naming the table, and changes nothing', async () => {
    const before = await countAll(target);
    await expect(copyStore(source, target)).rejects.toThrow('The target store is not empty: table users holds rows.');
    expect(await countAll(target)).toEqual(before);
  });
});

it('refuses a target holding only log entries, naming that table, and copies nothing', async () => {
  const target = openPostgresStore(await newDatabase('copy_logs_only'));
  try {
    await migrateToLatest(target);
    await insertLogEntries(target, [{ timestamp: now.toISOString(), level: 'information', instanceId: null, handler: 'http', message: 'a server already ran here' }]);
    await expect(copyStore(source, target)).rejects.toThrow('table logs holds rows');
    expect(await countRows(target, 'users')).toBe(0);
    expect(await countRows(target, 'logs')).toBe(1);
  } finally {
    await target.destroy();
  }
});

it('refuses a copy when the source changed during it, and leaves the target empty', async () => {
  const target = openPostgresStore(await newDatabase('copy_moving'));
  const entries = await countRows(source, 'logs');
  // A server still running: it writes to the store through a connection of its own while the copy reads.
  const running = new SQLite(path.join(dataDir, 'warden.sqlite'));
  const write = running.prepare("insert into logs(timestamp, level, instance_id, handler, message, properties) values (?, 'information', null, 'http', 'late entry', '{}')");
  try {
    await expect(copyStore(source, target, (table) => table === 'users' && write.run(now.toISOString()))).rejects.toThrow(
      `Counts differ after the copy: table logs holds ${(entries + 1).toLocaleString('en-US')} rows in the source, ${entries.toLocaleString('en-US')} in the target`,
    );
    expect(Object.values(await countAll(target)).every((n) => n === 0)).toBe(true);
  } finally {
    running.prepare("delete from logs where message = 'late entry'").run();
    running.close();
    await target.destroy();
  }
});

describe('npm run admin -- migrate-store', () => {
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    promisify(execFile)('npx', ['tsx', 'scripts/admin.ts', 'migrate-store', ...args], {
      env: { ...process.env, WARDEN_DATA_DIR: dataDir, WARDEN_DATABASE_URL: undefined, ...env },
    });
  const password = 's3cret-Pa55';

  it('copies the store of WARDEN_DATA_DIR, prints each table and the total, and never the password', async () => {
    const url = (await newDatabase('copy_command')).replace('//warden@', `//warden:${password}@`);
    const { stdout } = await run(['--to', url]);

    const counts = await countAll(source);
    const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
    const shown = `postgres://warden:***@127.0.0.1:${server.port}/copy_command`;
    const lines = stdout.split('\n');
    expect(lines.slice(0, -3).sort()).toEqual(copiedTables.map((table) => `${table}: ${counts[table].toLocaleString('en-US')} ${counts[table] === 1 ? 'row' : 'rows'}`).sort());
    expect(lines.slice(-3)).toEqual([
      `Copied ${total.toLocaleString('en-US')} rows in ${copiedTables.length} tables to ${shown}; counts verified.`,
      `Next: set WARDEN_DATABASE_URL=${shown} (with its password) for every Warden server, and start them.`,
      '',
    ]);
    expect(stdout).not.toContain(password);
    const target = openPostgresStore(url);
    try {
      expect(await countAll(target)).toEqual(counts);
    } finally {
      await target.destroy();
    }
  }, 60_000);

  it('exits 1 with one clear line, without the password, when it cannot copy', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-copy-empty-'));
    const database = await newDatabase('copy_refused');
    const withPassword = database.replace('//warden@', `//warden:${password}@`);
    try {
      const failures = await Promise.all(
        [
          run(['--to', `postgres://warden:${password}@127.0.0.1:${server.port}/`]),
          run(['--to', `mysql://warden:${password}@127.0.0.1/warden`]),
          run(['--to', withPassword], { WARDEN_DATA_DIR: empty }),
          run(['--to', withPassword], { WARDEN_DATABASE_URL: database.replace('postgres://', 'postgresql://') }),
        ].map((running) => running.then(() => ({ code: 0, stderr: '' }), (error: { code: number; stderr: string }) => error)),
      );
      expect(failures.map((f) => ({ code: f.code, stderr: f.stderr }))).toEqual([
        { code: 1, stderr: '--to must be postgres://user:password@host:port/database (no database).\n' },
        { code: 1, stderr: '--to must be postgres://user:password@host:port/database (mysql is not postgres).\n' },
        { code: 1, stderr: `There is no embedded store at ${path.join(empty, 'warden.sqlite')}: set WARDEN_DATA_DIR to the data folder of the Warden server to move.\n` },
        {
          code: 1,
          stderr: `WARDEN_DATABASE_URL already names postgres://warden:***@127.0.0.1:${server.port}/copy_refused: this command copies the embedded store into it. Unset WARDEN_DATABASE_URL to run it.\n`,
        },
      ]);
      // The store that was not there stays not there.
      expect(fs.readdirSync(empty)).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it('exits 1 when the target is in use, and copies nothing', async () => {
    const url = (await newDatabase('copy_in_use')).replace('//warden@', `//warden:${password}@`);
    const target = openPostgresStore(url);
    try {
      await migrateToLatest(target);
      await createUser(target, { email: 'someone@example.com', password: goodPassword, role: 'admin' });
      await expect(run(['--to', url])).rejects.toMatchObject({
        code: 1,
        stderr: 'Nothing was copied: The target store is not empty: table users holds rows. Copying into a store in use would mix two stores.\n',
      });
      expect(await countAll(target)).toMatchObject({ users: 1, logs: 0, instances: 0 });
    } finally {
      await target.destroy();
    }
  }, 60_000);
});
