import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { AllBackupsPage, Backup, BackupsSummary, DownloadUrl } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Database and file backups of a real PostgreSQL 15 instance: taken through the API, stored with a
// checksum, verified in a scratch instance, restored into a new instance with the same data.

jest.setTimeout(300_000);

let world: InstanceWorld;
let source: Instance;

async function connect(instance: Instance, database = 'postgres'): Promise<Client> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database, password });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function query<T>(instance: Instance, database: string, text: string): Promise<T[]> {
  const client = await connect(instance, database);
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Everything a table holds, as one digest (order-independent by sorting on the key). */
async function tableDigest(instance: Instance, database: string, table: string): Promise<string> {
  const rows = await query<{ d: string }>(instance, database, `select md5(string_agg(t::text, '|' order by t::text)) as d from ${table} t`);
  return rows[0].d;
}

async function takeBackup(instance: Instance, kind: 'database' | 'files' = 'database'): Promise<Backup> {
  const res = await world.call('POST', `/instances/${instance.id}/backups/${kind}/backup`, {});
  expect(res.statusCode).toBe(202);
  await world.backups().idle();
  const page = (await world.call('GET', `/instances/${instance.id}/backups/${kind}?pageSize=100`)).json() as PageOf<Backup>;
  const backup = page.items.find((b) => b.id === res.json().id)!;
  return backup;
}

const storedFile = (backup: Backup) => path.join(world.dataDir, 'backups', backup.instanceId, `${backup.id}.tar`);
const sha256Of = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'shop', type: 'pg' });
  await world.service().idle();
  source = await world.instance(res.json().id);
  const admin = await connect(source);
  await admin.query('create role reader login password \'Reader-1\'');
  await admin.query('create database orders owner reader');
  await admin.query('create table notes (id serial primary key, body text)');
  await admin.query("insert into notes (body) select 'note ' || g from generate_series(1, 300) g");
  await admin.end();
  const orders = await connect(source, 'orders');
  await orders.query('create schema sales');
  await orders.query('create table sales.items (id int primary key, name text, price numeric(10,2), tags jsonb)');
  await orders.query(
    "insert into sales.items select g, 'item ' || g, g * 1.25, jsonb_build_object('n', g) from generate_series(1, 20000) g",
  );
  await orders.query('grant usage on schema sales to reader');
  await orders.query('grant select on sales.items to reader');
  await orders.end();
});

afterAll(async () => {
  await world.destroy();
});

describe('a database backup of PostgreSQL', () => {
  let backup: Backup;

  it('answers 202 at once, reports progress and completion, and lists a succeeded backup whose checksum matches the stored file', async () => {
    backup = await takeBackup(source);
    expect(backup).toMatchObject({ kind: 'database', trigger: 'manual', status: 'succeeded', error: null, instanceName: 'shop' });
    expect(backup.sizeBytes).toBe(fs.statSync(storedFile(backup)).size);
    expect(backup.sha256).toBe(sha256Of(storedFile(backup)));
    expect(backup.durationMs).toBeGreaterThanOrEqual(0);
    // Every table of the dump's snapshot, with the planner's estimate of its rows: verify counts exactly.
    const orders = backup.contents!.databases!.find((d) => d.name === 'orders')!;
    expect(orders).toMatchObject({ rowsEstimated: true });
    expect(Object.keys(orders.rows)).toEqual(['sales.items']);
    expect(Object.keys(backup.contents!.databases!.find((d) => d.name === 'postgres')!.rows)).toEqual(['public.notes']);
    expect(backup.contents!.lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(world.events('BackupCompleted').map((e) => e.backup.id)).toContain(backup.id);
    const progress = world.events('BackupProgress').filter((e) => e.backupId === backup.id);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1).percent).toBeGreaterThanOrEqual(progress[0].percent);
    expect((await world.instance(source.id)).lastBackupAt).toBe(backup.finishedAt);
    // The staging folder of the dumps goes beside the announcement, but before the backup's work ends.
    expect(fs.readdirSync(path.join(world.dataDir, 'instances')).filter((name) => name.startsWith('.backup-'))).toEqual([]);
  });

  it('packs a manifest, the globals and one pg_dump archive per database that pg_restore can list', () => {
    const listing = execFileSync('tar', ['-tf', storedFile(backup)]).toString().split('\n');
    expect(listing).toEqual(expect.arrayContaining(['manifest.json', 'globals.sql', 'databases/1.dump', 'databases/2.dump']));
    const dir = fs.mkdtempSync(path.join(world.dataDir, 'unpacked-'));
    execFileSync('tar', ['-xf', storedFile(backup), '-C', dir]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    // app: the owner role's default database, which every instance has.
    expect(manifest.databases.map((d: { name: string }) => d.name)).toEqual(['app', 'orders', 'postgres']);
    expect(fs.readFileSync(path.join(dir, 'globals.sql'), 'utf8')).toMatch(/CREATE ROLE reader/);
    const orders = manifest.databases.find((d: { name: string }) => d.name === 'orders');
    const toc = execFileSync('/usr/lib/postgresql/15/bin/pg_restore', ['-l', path.join(dir, orders.file)]).toString();
    expect(toc).toMatch(/TABLE DATA sales items/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is verified against exactly the rows its dump holds, taken while rows were being inserted', async () => {
    const admin = await connect(source);
    await admin.query('create database busy');
    await admin.end();
    const writer = await connect(source, 'busy');
    await writer.query('create table events (id bigserial primary key, at timestamptz not null default clock_timestamp())');
    await writer.query('insert into events select from generate_series(1, 1000)');
    let writing = true;
    const inserting = (async () => {
      while (writing) await writer.query('insert into events default values');
    })();
    const count = async () => Number((await query<{ n: string }>(source, 'busy', 'select count(*) as n from events'))[0].n);
    let taken: Backup;
    let before: number;
    try {
      before = await count();
      taken = await takeBackup(source);
    } finally {
      writing = false;
      await inserting;
    }
    const after = await count();
    await writer.end();
    expect(taken.status).toBe('succeeded');
    expect(Object.keys(taken.contents!.databases!.find((d) => d.name === 'busy')!.rows)).toEqual(['public.events']);
    // Rows went in before, during and after the backup.
    expect(after).toBeGreaterThan(before);

    // The rows the dump holds, read from the archive with pg_restore (no server needed).
    const dir = fs.mkdtempSync(path.join(world.dataDir, 'unpacked-'));
    execFileSync('tar', ['-xf', storedFile(taken), '-C', dir]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const busy = manifest.databases.find((d: { name: string }) => d.name === 'busy');
    const script = execFileSync('/usr/lib/postgresql/15/bin/pg_restore', ['-a', '-t', 'events', '-f', '-', path.join(dir, busy.file)], { maxBuffer: 64 * 1024 * 1024 })
      .toString()
      .split('\n');
    const copyAt = script.findIndex((line) => line.startsWith('COPY public.events '));
    const dumped = script.slice(copyAt + 1, script.indexOf('\\.', copyAt)).length;
    fs.rmSync(dir, { recursive: true, force: true });
    expect(copyAt).toBeGreaterThanOrEqual(0);
    expect(busy.rows).toEqual(taken.contents!.databases!.find((d) => d.name === 'busy')!.rows);
    expect(dumped).toBeGreaterThanOrEqual(before);
    expect(dumped).toBeLessThanOrEqual(after);

    // The drill counts what the dump holds (busy's rows beside the 20,300 of the other databases) and finds all of it restored.
    expect((await world.call('POST', `/instances/${source.id}/backups/${taken.id}/verify`, {})).statusCode).toBe(202);
    await world.backups().idle();
    const verified = (await world.backups().find(taken.id))!;
    expect(verified.verification).toMatchObject({ ok: true });
    expect(verified.verification!.detail).toContain(`4 database(s), 3 table(s), ${20300 + dumped} row(s)`);

    const cleanup = await connect(source);
    await cleanup.query('drop database busy');
    await cleanup.end();
  });

  it('refuses a second backup of the same instance while one runs (409)', async () => {
    const first = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
    const second = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(409);
    expect(second.json().detail).toMatch(/being taken/);
    await world.backups().idle();
  });

  it('verifies by restoring into a scratch instance and comparing the row counts, then removes the scratch instance', async () => {
    const res = await world.call('POST', `/instances/${source.id}/backups/${backup.id}/verify`, {});
    expect(res.statusCode).toBe(202);
    // Every viewer learns at once that it is being verified.
    expect(res.json()).toMatchObject({ id: backup.id, verifying: true });
    expect(world.events('BackupUpdated').some((e) => e.backup.id === backup.id && e.backup.verifying)).toBe(true);
    await world.backups().idle();
    const verified = (await world.backups().find(backup.id))!;
    expect(verified).toMatchObject({ verifying: false, verification: { ok: true } });
    expect(verified.verification!.detail).toMatch(/3 database\(s\), 2 table\(s\), 20300 row\(s\)/);
    expect(fs.readdirSync(path.join(world.dataDir, 'instances')).filter((n) => n.startsWith('.') && n !== '.limits')).toEqual([]);
    expect(world.events('BackupUpdated').some((e) => e.backup.id === backup.id && e.backup.verification?.ok)).toBe(true);
  });

  it('restores into a new instance with identical data, roles and ownership (clone from a backup)', async () => {
    // Written after the backup: the restore must not have it.
    const admin = await connect(source);
    await admin.query("insert into notes (body) values ('after the backup')");
    await admin.end();

    const res = await world.call('POST', `/instances/${source.id}/clone`, { name: 'shop-restored', backupId: backup.id });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const restored = await world.instance(res.json().id);
    expect(restored).toMatchObject({ status: 'running', type: 'pg' });
    expect(await tableDigest(restored, 'orders', 'sales.items')).toBe(await tableDigest(source, 'orders', 'sales.items'));
    const notes = await query<{ n: number }>(restored, 'postgres', 'select count(*)::int as n from notes');
    expect(notes[0].n).toBe(300);
    const owner = await query<{ owner: string }>(restored, 'postgres', "select pg_get_userbyid(datdba) as owner from pg_database where datname = 'orders'");
    expect(owner[0].owner).toBe('reader');
    // The restored role can sign in with its own password over TCP.
    const reader = new Client({ host: '127.0.0.1', port: restored.port, user: 'reader', database: 'orders', password: 'Reader-1' });
    reader.on('error', () => undefined);
    await reader.connect();
    expect((await reader.query('select count(*)::int as n from sales.items')).rows[0].n).toBe(20000);
    await reader.end();
  });

  it('refuses a backup that belongs to another instance or is not a database backup', async () => {
    const other = await world.call('POST', `/instances/${source.id}/clone`, { name: 'shop-nope', backupId: 'no-such-backup' });
    expect(other.statusCode).toBe(404);
  });

  it('finds a flipped byte: verification and download fail and the backup is marked corrupt', async () => {
    const victim = await takeBackup(source);
    const url = (await world.call('GET', `/instances/${source.id}/backups/url/${victim.id}`)).json() as DownloadUrl;
    const file = storedFile(victim);
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);

    // The body is cut before its last chunk: never the whole, corrupt file.
    await expect(world.app().inject({ method: 'GET', url: url.url.replace(/^https?:\/\/[^/]+/, '') })).rejects.toThrow(/destroyed/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await world.backups().find(victim.id))!.status).toBe('corrupt');

    await world.call('POST', `/instances/${source.id}/backups/${victim.id}/verify`, {});
    await world.backups().idle();
    const checked = (await world.backups().find(victim.id))!;
    expect(checked.status).toBe('corrupt');
    expect(checked.verification).toMatchObject({ ok: false, detail: expect.stringMatching(/Checksum mismatch/) });
    const clone = await world.call('POST', `/instances/${source.id}/clone`, { name: 'from-corrupt', backupId: victim.id });
    expect(clone.statusCode).toBe(409);
  });
});

describe('file backups of PostgreSQL', () => {
  it('hold the configuration and logs of a running instance, without its data folder', async () => {
    const backup = await takeBackup(source, 'files');
    expect(backup).toMatchObject({ kind: 'file', status: 'succeeded', contents: { dataDirectory: false } });
    const listing = execFileSync('tar', ['-tf', storedFile(backup)]).toString();
    expect(listing).toMatch(/^data\/postgresql\.conf$/m);
    expect(listing).toMatch(/^data\/postgresql\.auto\.conf$/m);
    expect(listing).toMatch(/^logs\//m);
    expect(listing).not.toMatch(/^data\/base\//m);
    expect(listing).not.toMatch(/superuser\.password/);
  });

  it('copy the data folder cold when the instance is stopped', async () => {
    await world.call('POST', `/instances/${source.id}/stop`, {});
    await world.service().idle();
    const backup = await takeBackup(source, 'files');
    expect(backup).toMatchObject({ status: 'succeeded', contents: { dataDirectory: true } });
    expect(backup.format).toMatch(/data folder copied cold/);
    expect(execFileSync('tar', ['-tf', storedFile(backup)]).toString()).toMatch(/^data\/base\//m);
    const database = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
    expect(database.statusCode).toBe(409);
    expect(database.json().detail).toMatch(/not running/);
    await world.call('POST', `/instances/${source.id}/start`, {});
    await world.service().idle();
  });
});

describe('housekeeping', () => {
  it('summarizes both kinds and lists every backup in the global list with totals', async () => {
    const summary = (await world.call('GET', `/instances/${source.id}/backups`)).json() as BackupsSummary;
    expect(summary.database.succeeded).toBeGreaterThanOrEqual(2);
    expect(summary.files.succeeded).toBe(2);
    expect(summary.database.failed).toBe(1);
    expect(summary.database.running).toBeNull();
    const all = (await world.call('GET', '/backups?failuresFirst=true&pageSize=100')).json() as AllBackupsPage;
    expect(all.total).toBe(summary.database.count + summary.files.count);
    expect(all.items[0].status).toBe('corrupt');
    expect(all.failures).toBe(1);
    expect(all.totalBytes).toBe(all.items.reduce((sum, b) => sum + (b.sizeBytes ?? 0), 0));
    const onlyFiles = (await world.call('GET', '/backups?kind=file')).json() as AllBackupsPage;
    expect(onlyFiles.items.every((b) => b.kind === 'file')).toBe(true);
  });

  it('takes a backup before an update', async () => {
    const res = await world.call('POST', `/instances/${source.id}/update`, {});
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const page = (await world.call('GET', `/instances/${source.id}/backups/database?trigger=pre-update`)).json() as PageOf<Backup>;
    expect(page.items).toHaveLength(1);
    expect(page.items[0].status).toBe('succeeded');
    expect(world.events('OperationCompleted')).toContainEqual(
      expect.objectContaining({ instanceId: source.id, kind: 'update', ok: true, detail: expect.stringMatching(/pre-update database backup/) }),
    );
  });

  it('refuses to delete the last good backup of a kind unless forced, and removes the file when it deletes', async () => {
    const files = ((await world.call('GET', `/instances/${source.id}/backups/files`)).json() as PageOf<Backup>).items;
    const [newest, older] = files;
    expect((await world.call('DELETE', `/instances/${source.id}/backups/file/${older.id}`)).statusCode).toBe(200);
    expect(fs.existsSync(storedFile(older))).toBe(false);
    const refused = await world.call('DELETE', `/instances/${source.id}/backups/file/${newest.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/last good file backup/);
    expect((await world.call('DELETE', `/instances/${source.id}/backups/file/${newest.id}?force=true`)).statusCode).toBe(200);
    expect(fs.existsSync(storedFile(newest))).toBe(false);
    expect(world.events('BackupDeleted').map((e) => e.id)).toEqual(expect.arrayContaining([older.id, newest.id]));
    // The path names the kind: a database backup is not deleted through the file path.
    const database = ((await world.call('GET', `/instances/${source.id}/backups/database`)).json() as PageOf<Backup>).items[0];
    expect((await world.call('DELETE', `/instances/${source.id}/backups/file/${database.id}`)).statusCode).toBe(404);
  });

  it('keeps the backups of a deleted instance for admins and says so', async () => {
    const res = await world.call('POST', '/instances', { name: 'brief', type: 'pg' });
    await world.service().idle();
    const brief = await world.instance(res.json().id);
    await takeBackup(brief);
    const deleted = await world.call('DELETE', `/instances/${brief.id}?force=true`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().backups).toMatch(/backup is kept/);
    const kept = (await world.call('GET', `/instances/${brief.id}/backups/database`)).json() as PageOf<Backup>;
    expect(kept.items).toHaveLength(1);
    expect(kept.items[0]).toMatchObject({ instanceExists: false, instanceName: 'brief', status: 'succeeded' });
  });
});
