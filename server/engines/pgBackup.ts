import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { BackupContents } from '../../contracts/backups';
import type { BackupProgress, DatabaseBackup, InstanceRuntime } from './engine';
import { EngineError, run, runToFile } from './processRunner';
import { instanceUser } from './instanceUsers';
import { writeInstanceFile } from './instanceFiles';

// Database backups of PostgreSQL (DESIGN §5): pg_dump -Fc of every database that takes connections
// and is not a template, pg_dumpall --globals-only, and a manifest naming every table of the dump's
// snapshot with the planner's estimate of its rows. Counting them exactly beside the dump scanned the
// big tables a second time (a third more time and CPU than pg_dump alone); the verify drill counts the
// rows the dump holds exactly instead, from the dump itself, and compares the restore against them.

export const pgBackupFormat = 'warden-pg-v1 (tar: manifest.json, globals.sql, pg_dump -Fc per database)';

export interface PgManifest {
  format: string;
  engine: 'pg';
  takenAt: string;
  lsn: string;
  tools: Record<string, string>;
  databases: { name: string; file: string; bytes: number; rows: Record<string, number>; rowsEstimated?: boolean }[];
}

export interface PgTarget {
  rt: InstanceRuntime;
  socket: string;
  password: string;
}

export interface Tools {
  bin: (tool: string) => string;
}

const versions = new Map<string, Promise<string>>();

/** A tool's --version line, asked once per binary. */
function toolVersion(binary: string): Promise<string> {
  let known = versions.get(binary);
  if (!known) {
    known = run(null, binary, ['--version']).then(({ stdout }) => stdout.trim());
    known.catch(() => versions.delete(binary));
    versions.set(binary, known);
  }
  return known;
}

/** The superuser's connection over the instance's socket; `statementTimeoutMs` bounds each query. */
export function connect(target: PgTarget, database: string, statementTimeoutMs?: number): Promise<Client> {
  const client = new Client({
    host: target.socket,
    port: target.rt.port,
    user: 'postgres',
    database,
    password: target.password,
    connectionTimeoutMillis: 5000,
    // The owner role owns databases and may ALTER DATABASE … SET search_path, role, …: a function it
    // planted ahead of pg_catalog (a count() aggregate, an operator) would run as the superuser.
    // Startup options outrank per-database settings, so the control plane's session stays its own.
    options: '-c search_path=pg_catalog -c role=none -c session_authorization=postgres -c local_preload_libraries= -c default_transaction_read_only=off',
    ...(statementTimeoutMs && { statement_timeout: statementTimeoutMs }),
  });
  // A server that stops or restarts (57P01) ends the connection: the query in flight, or the next
  // one, rejects with the reason; the client's own error event must not take the process down.
  client.on('error', () => undefined);
  return client.connect().then(() => client);
}

export async function withClient<T>(
  target: PgTarget,
  database: string,
  use: (client: Client) => Promise<T>,
  statementTimeoutMs?: number,
): Promise<T> {
  const client = await connect(target, database, statementTimeoutMs);
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const connectionArgs = (target: PgTarget, user = 'postgres') => ['-h', target.socket, '-p', String(target.rt.port), '-U', user, '-w'];

/**
 * A libpq connection string naming only the database: `-d name` would read a name holding `=` or
 * starting with postgresql:// as connection options.
 */
export const dbnameArg = (name: string) => `dbname='${name.replace(/[\\']/g, (c) => `\\${c}`)}'`;

interface TablePlan {
  /** The manifest's key: schema and table each quoted only where SQL needs it (`public.t`, `"we.ird"."ta.ble"`). */
  table: string;
  /** Schema and table as pg_dump's progress lines print them (unquoted). */
  plain: string;
  /** The same, quoted for a query. */
  relation: string;
  bytes: number;
  /** The planner's estimate of its rows (pg_class.reltuples; 0 for a table never analyzed). */
  estimate: number;
}

/** Ordinary tables of the user's schemas, with their size on disk (for progress) and estimated rows. */
async function tablesOf(client: Client): Promise<TablePlan[]> {
  const { rows } = await client.query<{ schema: string; name: string; qualified: string; bytes: string; estimate: string }>(
    `select n.nspname as schema, c.relname as name, format('%I.%I', n.nspname, c.relname) as qualified,
            pg_total_relation_size(c.oid)::text as bytes, greatest(c.reltuples, 0)::bigint::text as estimate
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg_toast%' and n.nspname not like 'pg_temp%'
      order by 1, 2`,
  );
  return rows.map((r) => ({
    table: r.qualified,
    plain: `${r.schema}.${r.name}`,
    relation: `${client.escapeIdentifier(r.schema)}.${client.escapeIdentifier(r.name)}`,
    bytes: Number(r.bytes),
    estimate: Number(r.estimate),
  }));
}

async function countRows(client: Client, tables: TablePlan[]): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  // An index-only scan of a primary key reads a fraction of the heap a sequential scan reads. The
  // counts are exact whatever the plan.
  await client.query('set local enable_seqscan = off');
  await client.query('set local max_parallel_workers_per_gather = 0');
  for (const { table, relation } of tables) {
    const { rows: result } = await client.query<{ n: string }>(`select count(*)::text as n from only ${relation}`);
    rows[table] = Number(result[0].n);
  }
  return rows;
}

export async function pgBackupDatabase(
  tools: Tools,
  target: PgTarget,
  dir: string,
  progress: (p: BackupProgress) => void,
): Promise<DatabaseBackup & { manifest: PgManifest }> {
  const env = { PGPASSWORD: target.password };
  const { databases, lsn } = await withClient(target, 'postgres', async (client) => {
    const dbs = await client.query<{ name: string; bytes: string }>(
      `select datname as name, pg_database_size(datname)::text as bytes
         from pg_database where datallowconn and not datistemplate order by datname`,
    );
    // A replica (a cluster's dump reads one) has a replay position where a primary has a write position.
    const position = await client.query<{ lsn: string }>(
      'select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn',
    );
    return { databases: dbs.rows.map((d) => ({ name: d.name, bytes: Number(d.bytes) })), lsn: position.rows[0].lsn };
  });
  fs.mkdirSync(path.join(dir, 'databases'), { mode: 0o700 });
  const totalBytes = databases.reduce((sum, d) => sum + d.bytes, 0) || 1;
  // Every database is dumped at once (the small ones finish while the large one compresses), with
  // the globals beside them; progress adds up what each has written and the tables each has done.
  const state = databases.map(() => ({ written: 0, doneWeight: 0, current: null as string | null }));
  let globalsBytes = 0;
  const report = () => {
    const active = databases.flatMap((d, i) => (state[i].current ? [`${d.name} (${state[i].current})`] : []));
    progress({
      bytes: globalsBytes + state.reduce((sum, d) => sum + d.written, 0),
      percent: Math.min(99, (state.reduce((sum, d) => sum + d.doneWeight, 0) / totalBytes) * 100),
      step: active.length > 0 ? `dumping ${active.join(', ')}` : 'dumping',
    });
  };
  report();

  const dumpOne = async (database: { name: string; bytes: number }, index: number, started?: () => void) => {
    const file = `databases/${index + 1}.dump`;
    const mine = state[index];
    const client = await connect(target, database.name);
    try {
      // One snapshot for the dump and the table list: the manifest names exactly the tables dumped.
      await client.query('begin isolation level repeatable read read only');
      const snapshot = (await client.query<{ id: string }>('select pg_export_snapshot() as id')).rows[0].id;
      // The dump starts at once; the tables it holds (for the manifest, and to weigh its progress) are
      // read beside it on the same snapshot.
      const sizes = new Map<string, number>();
      let tableBytes = 1;
      const dump = runToFile(
        instanceUser(target.rt),
        tools.bin('pg_dump'),
        ['-Fc', '-v', `--snapshot=${snapshot}`, ...connectionArgs(target), '-d', dbnameArg(database.name)],
        path.join(dir, file),
        {
          env,
          onBytes: (bytes) => {
            mine.written = bytes;
            report();
          },
          onStderrLine: (line) => {
            const match = /dumping contents of table "(.+)"/.exec(line);
            if (!match) return;
            if (mine.current) mine.doneWeight += (database.bytes * (sizes.get(mine.current) ?? 0)) / tableBytes;
            mine.current = match[1];
            report();
          },
        },
      );
      started?.();
      // Awaited below, once the tables are read: a dump that fails meanwhile must not count as unhandled.
      dump.catch(() => undefined);
      const tables = await tablesOf(client);
      for (const t of tables) sizes.set(t.plain, t.bytes);
      tableBytes = tables.reduce((sum, t) => sum + t.bytes, 0) || 1;
      const rows = Object.fromEntries(tables.map((t) => [t.table, t.estimate]));
      const bytes = await dump;
      await client.query('commit');
      mine.current = null;
      mine.doneWeight = database.bytes;
      report();
      return { name: database.name, file, bytes, rows, rowsEstimated: true };
    } finally {
      // Not awaited: the backend's exit is no part of the backup (the transaction is over, or failed).
      client.end().catch(() => undefined);
    }
  };

  // The largest database's dump is the critical path: it connects and starts first, and the others (with
  // the globals) once it runs, so their connections and process starts do not delay it. Should it fail
  // before it starts, nothing else is started: the backup fails with its error.
  const order = databases.map((_, index) => index).sort((a, b) => databases[b].bytes - databases[a].bytes);
  const dumps: Promise<PgManifest['databases'][number]>[] = [];
  let largestStarted: () => void = () => undefined;
  const othersMayStart = new Promise<void>((resolve) => (largestStarted = resolve));
  for (const index of order) {
    dumps[index] = index === order[0] ? dumpOne(databases[index], index, largestStarted) : othersMayStart.then(() => dumpOne(databases[index], index));
  }
  if (order.length === 0) largestStarted();
  const globalsDumped = othersMayStart.then(() =>
    run(instanceUser(target.rt), tools.bin('pg_dumpall'), ['--globals-only', ...connectionArgs(target)], { env }).then(({ stdout }) => {
      globalsBytes = Buffer.byteLength(stdout);
      return stdout;
    }),
  );
  const [dumpVersion, globals, ...dumped] = await Promise.all([toolVersion(tools.bin('pg_dump')), globalsDumped, ...dumps]);
  writeInstanceFile(path.join(dir, 'globals.sql'), globals, { within: dir });
  const manifest: PgManifest = {
    format: pgBackupFormat,
    engine: 'pg',
    takenAt: new Date().toISOString(),
    lsn,
    tools: { pg_dump: dumpVersion },
    databases: dumped,
  };
  const writtenBefore = globalsBytes + dumped.reduce((sum, d) => sum + d.bytes, 0);
  writeInstanceFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2), { within: dir });
  progress({ bytes: writtenBefore, percent: 99, step: 'packing' });
  const contents: BackupContents = {
    databases: manifest.databases.map(({ name, bytes, rows, rowsEstimated }) => ({ name, bytes, rows, ...(rowsEstimated && { rowsEstimated }) })),
    lsn,
    tools: manifest.tools,
  };
  return { format: pgBackupFormat, contents, manifest };
}

export function readPgManifest(dir: string): PgManifest {
  let manifest: PgManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as PgManifest;
  } catch (error) {
    throw new EngineError(`The backup has no readable manifest.json: ${(error as Error).message}`);
  }
  if (manifest.engine !== 'pg' || !Array.isArray(manifest.databases)) throw new EngineError('The backup is not a PostgreSQL database backup.');
  return manifest;
}

/** Exact row counts of every user table of one database (`schema.table` → rows), as the superuser. */
export function pgRowCounts(target: PgTarget, database: string): Promise<Record<string, number>> {
  return withClient(target, database, async (client) => client.query('begin').then(async () => countRows(client, await tablesOf(client))));
}


/** Exact row counts of the databases and tables a backup recorded, read from a running server. */
export async function pgInspect(target: PgTarget, recorded: BackupContents): Promise<BackupContents> {
  const databases: NonNullable<BackupContents['databases']> = [];
  for (const { name, rows: recordedRows } of recorded.databases ?? []) {
    const recordedKeys = new Set(Object.keys(recordedRows ?? {}));
    try {
      databases.push(
        await withClient(target, name, async (client) => {
          // Backups taken before names were quoted recorded `schema.table` as is: count under that key.
          const tables = (await tablesOf(client)).map((t) => ({ ...t, table: !recordedKeys.has(t.table) && recordedKeys.has(t.plain) ? t.plain : t.table }));
          return { name, bytes: 0, rows: await countRows(client, tables) };
        }),
      );
    } catch (error) {
      throw new EngineError(`Database ${name} could not be read after the restore: ${(error as Error).message}`);
    }
  }
  return { databases };
}
