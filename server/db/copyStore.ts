import { sql, type Kysely } from 'kysely';
import { migrateToLatest } from './migrations';
import { isPostgres } from './postgresStore';
import type { Database, Db } from './schema';

/*
 * A whole store copied into an empty one, once: how an operator moves from the embedded store to
 * PostgreSQL (`npm run admin -- migrate-store`). Rows keep their ids. What a store derives for itself
 * is not copied: log_totals and instance_count (the target's triggers count rows as they arrive), rate_limits (counts
 * of the last minute, kept only by servers sharing a PostgreSQL store), the log search
 * index (logs_fts on SQLite, logs.search on PostgreSQL) and the migrator's own tables.
 */

type Copied = Exclude<keyof Database, 'log_totals' | 'rate_limits' | 'instance_count'>;

/**
 * Every table copied, in the order copied: parents before the tables whose foreign keys name them.
 * Rows are read in primary key order, a batch at a time. Typed over every table of Database, so a
 * new table cannot be left out.
 */
const copiedTables: { [T in Copied]: { key: (keyof Database[T] & string)[]; rowsPerBatch?: number } } = {
  users: { key: ['id'] },
  sessions: { key: ['id'] },
  tokens: { key: ['id'] },
  recovery_codes: { key: ['id'] },
  login_failures: { key: ['user_id', 'address'] },
  audit_entries: { key: ['id'] },
  outbox: { key: ['id'] },
  groups: { key: ['id'] },
  group_members: { key: ['group_id', 'user_id'] },
  hosts: { key: ['id'] },
  instances: { key: ['id'] },
  host_operations: { key: ['id'] },
  config_revisions: { key: ['instance_id', 'revision'] },
  backups: { key: ['id'] },
  backup_schedules: { key: ['instance_id'] },
  scripts: { key: ['instance_id'] },
  // A run keeps up to 16 MiB of results (contracts/scripts.ts scriptLimits): a few runs make a batch.
  script_runs: { key: ['id'], rowsPerBatch: 8 },
  metric_series: { key: ['id'] },
  metric_samples: { key: ['series_id', 'resolution', 'at'] },
  restore_points: { key: ['instance_id', 'name'] },
  point_restores: { key: ['instance_id'] },
  recovery_checks: { key: ['id'] },
  logs: { key: ['id'] },
  log_offsets: { key: ['file'] },
  hub_payloads: { key: ['id'] },
  shared_secrets: { key: ['name'] },
};

/** Rows read and written at a time, unless the table names fewer. */
const batchRows = 500;
/** Bind parameters one statement may hold: SQLite's 32,766 (PostgreSQL's 65,535 is more). */
const maxParameters = 32_766;

type Row = Record<string, unknown>;
/** A store seen without its row types: rows pass from one store to the other as read. */
type Untyped = Kysely<Record<string, Row>>;
const untyped = (db: Db) => db as unknown as Untyped;

/**
 * Copies every table of `from` into `to`, which must hold no rows yet; answers each table's rows.
 * Both stores are brought to this build's schema first. The copy runs in one transaction on `to`
 * and is verified there (row counts of every table, and the log totals) before it commits, so a
 * failure leaves `to` as empty as it was. Stop every server using `from` first: rows written during
 * the copy make the counts differ, and the copy is refused.
 */
export async function copyStore(from: Db, to: Db, onTable?: (table: string, rows: number) => void): Promise<Array<{ table: string; rows: number }>> {
  await migrateToLatest(from);
  await migrateToLatest(to);
  const tables = Object.keys(copiedTables) as Copied[];
  return to.transaction().execute(async (target) => {
    for (const table of tables) await refuseRows(untyped(target), table);
    // One snapshot of the source, so every child row finds the parent copied before it.
    const copied = await from.transaction().execute(async (source) => {
      const counts: Array<{ table: Copied; rows: number }> = [];
      for (const table of tables) {
        const rows = await copyTable(untyped(source), untyped(target), table);
        onTable?.(table, rows);
        counts.push({ table, rows });
      }
      return counts;
    });
    await verify(from, target, copied);
    if (isPostgres(to)) await moveSequencesPastCopiedIds(target);
    return copied;
  });
}

async function refuseRows(target: Untyped, table: Copied): Promise<void> {
  const row = await target.selectFrom(table).select(sql.lit(1).as('found')).limit(1).executeTakeFirst();
  if (row) throw new Error(`The target store is not empty: table ${table} holds rows. Copying into a store in use would mix two stores.`);
}

async function copyTable(source: Untyped, target: Untyped, table: Copied): Promise<number> {
  const { key, rowsPerBatch: batch = batchRows } = copiedTables[table];
  let last: Row | undefined;
  let copied = 0;
  for (;;) {
    let query = source.selectFrom(table).selectAll().limit(batch);
    // Keyset paging: each batch starts after the last key read, however large the table.
    if (last) {
      const after = last;
      query = query.where(sql<boolean>`(${sql.join(key.map((column) => sql.ref(column)))}) > (${sql.join(key.map((column) => after[column]))})`);
    }
    for (const column of key) query = query.orderBy(column);
    const rows = (await query.execute()).map(withoutDerived);
    if (rows.length === 0) return copied;
    // One bind parameter per value: a table of many columns takes fewer rows per insert.
    const rowsPerInsert = Math.floor(maxParameters / Object.keys(rows[0]).length);
    try {
      for (let start = 0; start < rows.length; start += rowsPerInsert) {
        await target.insertInto(table).values(rows.slice(start, start + rowsPerInsert)).execute();
      }
    } catch (error) {
      throw new Error(`Copying table ${table} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    copied += rows.length;
    last = rows[rows.length - 1];
  }
}

/** A PostgreSQL source's logs carry their search words, a generated column the target computes itself. */
function withoutDerived(row: Row): Row {
  if (!('search' in row)) return row;
  const { search: _generated, ...rest } = row;
  return rest;
}

async function verify(from: Db, target: Db, copied: Array<{ table: Copied }>): Promise<void> {
  for (const { table } of copied) {
    const [inSource, inTarget] = await Promise.all([countRows(from, table), countRows(target, table)]);
    if (inSource !== inTarget) {
      throw new Error(
        `Counts differ after the copy: table ${table} holds ${inSource.toLocaleString('en-US')} rows in the source, ${inTarget.toLocaleString('en-US')} in the target (was a server still writing to the source?).`,
      );
    }
  }
  const [sourceEntries, targetEntries] = await Promise.all([logEntries(from), logEntries(target)]);
  if (sourceEntries !== targetEntries) {
    throw new Error(`Log totals differ after the copy: ${sourceEntries.toLocaleString('en-US')} entries in the source, ${targetEntries.toLocaleString('en-US')} in the target.`);
  }
}

async function countRows(db: Db, table: Copied): Promise<number> {
  const { n } = await untyped(db).selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

async function logEntries(db: Db): Promise<number> {
  const { entries } = await db.selectFrom('log_totals').select((eb) => eb.fn.sum<number>('entries').as('entries')).executeTakeFirstOrThrow();
  return Number(entries ?? 0);
}

/**
 * PostgreSQL only: a bigserial column takes ids from a sequence that rows inserted with their own
 * ids do not advance, so each is set past the largest copied id, or the next insert would collide.
 * (SQLite's AUTOINCREMENT counter follows inserted ids by itself.) Sequences ignore rollback, so this
 * runs last, once the copy is verified.
 */
async function moveSequencesPastCopiedIds(db: Db): Promise<void> {
  for (const table of ['logs', 'metric_series', 'hub_payloads', 'host_operations'] as const) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(db);
  }
}
