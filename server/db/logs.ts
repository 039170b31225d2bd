import { sql, type Selectable, type SqlBool } from 'kysely';
import type { LogEntry, LogLevel } from '../../contracts/logs';
import type { OffsetStore } from '../logs/tailer';
import { matchesSearch } from './logSearch';
import { containsAnyCase } from './paging';
import type { Db, LogsTable } from './schema';

export interface NewLogEntry {
  timestamp: string;
  level: LogLevel;
  instanceId: string | null;
  handler: string;
  message: string;
  properties?: Record<string, unknown>;
}

function toEntry(row: Selectable<LogsTable>): LogEntry {
  return {
    id: row.id,
    timestamp: row.timestamp,
    level: row.level,
    instanceId: row.instance_id,
    handler: row.handler,
    message: row.message,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
  };
}

/** Stores entries in one statement per chunk and answers them with their ids, in order. */
/** The null character stands as U+FFFD: PostgreSQL's text cannot hold it, and a log line may carry one. */
const withoutNul = (text: string) => (text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);

export async function insertLogEntries(db: Db, given: NewLogEntry[]): Promise<LogEntry[]> {
  const entries = given.some((e) => e.message.includes('\0') || e.handler.includes('\0'))
    ? given.map((e) => ({ ...e, handler: withoutNul(e.handler), message: withoutNul(e.message) }))
    : given;
  const stored: LogEntry[] = [];
  // SQLite binds at most 32766 variables; seven columns a row.
  for (let start = 0; start < entries.length; start += 1000) {
    const chunk = entries.slice(start, start + 1000);
    const rows = await db
      .insertInto('logs')
      .values(
        chunk.map((e) => ({
          timestamp: e.timestamp,
          level: e.level,
          instance_id: e.instanceId,
          handler: e.handler,
          message: e.message,
          properties: JSON.stringify(e.properties ?? {}),
        })),
      )
      // Only the ids come back: the rest is what was written, so no row is read and parsed again.
      .returning('id')
      .execute();
    rows.forEach((row, i) => {
      const e = chunk[i];
      stored.push({ id: row.id, timestamp: e.timestamp, level: e.level, instanceId: e.instanceId, handler: e.handler, message: e.message, properties: e.properties ?? {} });
    });
  }
  return stored;
}

export interface LogQuery {
  /** An instance's entries, or null for the control plane's own. */
  instanceId: string | null;
  levels?: LogLevel[];
  handler?: string;
  search?: string;
  from?: string;
  to?: string;
  /** Only entries with a smaller id (older). */
  cursor?: number;
  limit: number;
}

/** Newest first; `nextCursor` continues with older entries. */
export async function queryLogs(db: Db, query: LogQuery): Promise<{ items: LogEntry[]; nextCursor: number | null }> {
  let q = db.selectFrom('logs').selectAll();
  q = query.instanceId === null ? q.where('instance_id', 'is', null) : q.where('instance_id', '=', query.instanceId);
  if (query.levels && query.levels.length > 0) q = q.where('level', 'in', query.levels);
  if (query.handler) q = q.where('handler', '=', query.handler);
  if (query.search) q = q.where(containsAnyCase('message', query.search));
  if (query.from) q = q.where('timestamp', '>=', query.from);
  if (query.to) q = q.where('timestamp', '<=', query.to);
  if (query.cursor) q = q.where('id', '<', query.cursor);
  const rows = await q.orderBy('id', 'desc').limit(query.limit + 1).execute();
  const items = rows.slice(0, query.limit).map(toEntry);
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1].id : null };
}

export async function uniqueHandlers(db: Db, instanceId: string | null): Promise<string[]> {
  let q = db.selectFrom('logs').select('handler').distinct();
  q = instanceId === null ? q.where('instance_id', 'is', null) : q.where('instance_id', '=', instanceId);
  return (await q.orderBy('handler').execute()).map((r) => r.handler);
}

/** Where tailing stopped in each of an instance's log files. */
export function offsetStore(db: Db, instanceId: string): OffsetStore {
  return {
    async get(file) {
      const row = await db.selectFrom('log_offsets').select('offset').where('file', '=', file).executeTakeFirst();
      return row?.offset ?? 0;
    },
    async set(file, offset) {
      await db
        .insertInto('log_offsets')
        .values({ file, instance_id: instanceId, offset })
        .onConflict((oc) => oc.column('file').doUpdateSet({ offset }))
        .execute();
    },
  };
}

// The global log store (GET /logs/…): one filter shape for the page, the histogram, the export and
// clearing, always within the caller's scope. Search goes through logSearch.ts, the rest is Kysely.

/** Whose entries a caller may see: everything (admins) or the instances of these groups. */
export type LogScope = { kind: 'all' } | { kind: 'groups'; groupIds: string[] };

export interface LogFilter {
  scope: LogScope;
  levels?: LogLevel[];
  /** An instance's entries, or null for the control plane's own (admins only; the route checks). */
  instanceId?: string | null;
  handler?: string;
  /** Words every entry found holds (logSearch.searchWords). */
  search?: string[];
  /** Inclusive, ISO. */
  from?: string;
  /** Exclusive, ISO. */
  to?: string;
}

/** Position of an entry in time order, for keyset paging: entries after it in the sort direction follow. */
export interface LogCursor {
  timestamp: string;
  id: number;
}

export type LogOrder = 'asc' | 'desc';

function filtered(db: Db, filter: LogFilter) {
  let q = db.selectFrom('logs');
  if (filter.scope.kind === 'groups') {
    const { groupIds } = filter.scope;
    // Control-plane entries (no instance) never match `in`, so they stay admin-only.
    q = groupIds.length === 0
      ? q.where(sql<SqlBool>`1 = 0`)
      : q.where('logs.instance_id', 'in', db.selectFrom('instances').select('instances.id').where('instances.group_id', 'in', groupIds));
  }
  if (filter.instanceId === null) q = q.where('logs.instance_id', 'is', null);
  else if (filter.instanceId !== undefined) q = q.where('logs.instance_id', '=', filter.instanceId);
  if (filter.levels) q = filter.levels.length > 0 ? q.where('logs.level', 'in', filter.levels) : q.where(sql<SqlBool>`1 = 0`);
  if (filter.handler) q = q.where('logs.handler', '=', filter.handler);
  if (filter.search) q = q.where(matchesSearch(db, filter.search));
  if (filter.from) q = q.where('logs.timestamp', '>=', filter.from);
  if (filter.to) q = q.where('logs.timestamp', '<', filter.to);
  return q;
}

function after(cursor: LogCursor, order: LogOrder) {
  // Row values compare (timestamp, id) as one key on SQLite and PostgreSQL alike.
  return order === 'desc'
    ? sql<SqlBool>`(logs.timestamp, logs.id) < (${cursor.timestamp}, ${cursor.id})`
    : sql<SqlBool>`(logs.timestamp, logs.id) > (${cursor.timestamp}, ${cursor.id})`;
}

/** Past this many matches the total is reported as "at least": counting 10M rows costs more than the page. */
export const logCountLimit = 10_000;

export interface LogPageResult {
  items: LogEntry[];
  /** Matches, counted up to logCountLimit + 1. */
  total: number;
  totalExact: boolean;
  /** Continues after the last item in the same order; null when there is nothing more. */
  nextCursor: LogCursor | null;
}

/**
 * One page in time order. With a cursor the page starts right after it, so pages neither repeat
 * nor skip while entries keep arriving; without one, `offset` skips rows (SPEC's page number).
 */
export async function queryLogPage(
  db: Db,
  filter: LogFilter,
  window: { limit: number; offset: number; order: LogOrder; cursor?: LogCursor },
): Promise<LogPageResult> {
  let rows = filtered(db, filter).selectAll('logs');
  if (window.cursor) rows = rows.where(after(window.cursor, window.order));
  const [found, counted] = await Promise.all([
    rows
      .orderBy('logs.timestamp', window.order)
      .orderBy('logs.id', window.order)
      .limit(window.limit + 1)
      .offset(window.cursor ? 0 : window.offset)
      .execute(),
    db
      .selectFrom(filtered(db, filter).select('logs.id').limit(logCountLimit + 1).as('matches'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const items = found.slice(0, window.limit).map(toEntry);
  const last = items[items.length - 1];
  const total = Number(counted.n);
  return {
    items,
    total,
    totalExact: total <= logCountLimit,
    nextCursor: found.length > window.limit && last ? { timestamp: last.timestamp, id: last.id } : null,
  };
}

/** A stored row as read for export: properties still the JSON text they were stored as. */
export type StoredLogRow = Selectable<LogsTable>;

/** Every match in time order, read in keyset batches so memory stays constant however many there are. */
export async function* streamLogs(db: Db, filter: LogFilter, order: LogOrder, batchSize = 2000): AsyncGenerator<StoredLogRow[]> {
  let cursor: LogCursor | undefined;
  for (;;) {
    let q = filtered(db, filter).selectAll('logs');
    if (cursor) q = q.where(after(cursor, order));
    const rows = await q.orderBy('logs.timestamp', order).orderBy('logs.id', order).limit(batchSize).execute();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    cursor = { timestamp: last.timestamp, id: last.id };
    yield rows;
    if (rows.length < batchSize) return;
  }
}

export interface LogSize {
  bytes: number;
  entries: number;
  oldest: string | null;
  newest: string | null;
}

/** Size of a scope from the running totals, and its time span from the time indexes. */
export async function logSize(db: Db, scope: LogScope): Promise<LogSize> {
  let instanceIds: string[] | null = null;
  if (scope.kind === 'groups') {
    instanceIds = scope.groupIds.length === 0
      ? []
      : (await db.selectFrom('instances').select('id').where('group_id', 'in', scope.groupIds).execute()).map((r) => r.id);
    if (instanceIds.length === 0) return { bytes: 0, entries: 0, oldest: null, newest: null };
  }
  let totals = db.selectFrom('log_totals').select((eb) => [eb.fn.sum<number>('entries').as('entries'), eb.fn.sum<number>('bytes').as('bytes')]);
  if (instanceIds) totals = totals.where('scope', 'in', instanceIds);
  const sums = await totals.executeTakeFirstOrThrow();
  let oldest: string | null = null;
  let newest: string | null = null;
  // min/max per instance each walk one index edge; over one IN list they would scan every row.
  for (const instanceId of instanceIds ?? [undefined]) {
    let q = db.selectFrom('logs').select((eb) => [eb.fn.min('timestamp').as('oldest'), eb.fn.max('timestamp').as('newest')]);
    if (instanceId !== undefined) q = q.where('instance_id', '=', instanceId);
    const span = await q.executeTakeFirstOrThrow();
    if (span.oldest && (oldest === null || span.oldest < oldest)) oldest = span.oldest;
    if (span.newest && (newest === null || span.newest > newest)) newest = span.newest;
  }
  return { bytes: Number(sums.bytes ?? 0), entries: Number(sums.entries ?? 0), oldest, newest };
}

/** Entries per level in each of `buckets` equal slices of [from, to). */
export async function logHistogram(db: Db, filter: LogFilter & { from: string; to: string }, buckets: number) {
  const start = Date.parse(filter.from);
  const bucketMs = Math.max(1, Math.ceil((Date.parse(filter.to) - start) / buckets));
  const result: { start: string; counts: Partial<Record<LogLevel, number>> }[] = [];
  for (let i = 0; i < buckets; i++) {
    const from = new Date(start + i * bucketMs).toISOString();
    const to = new Date(Math.min(start + (i + 1) * bucketMs, Date.parse(filter.to))).toISOString();
    if (from >= filter.to) break;
    const rows = await filtered(db, { ...filter, from, to })
      .select(['logs.level', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('logs.level')
      .execute();
    result.push({ start: from, counts: Object.fromEntries(rows.map((r) => [r.level, Number(r.n)])) });
  }
  return { from: filter.from, to: filter.to, bucketMs, buckets: result };
}

/**
 * Removes matching entries in batches of `batchSize`, letting other work (ingestion, requests)
 * run between batches; answers how many went.
 */
export async function removeLogs(db: Db, filter: LogFilter, batchSize = 1000): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await filtered(db, filter).select('logs.id').orderBy('logs.id').limit(batchSize).execute()).map((r) => r.id);
    if (ids.length === 0) return removed;
    const result = await db.deleteFrom('logs').where('id', 'in', ids).executeTakeFirst();
    removed += Number(result.numDeletedRows);
    if (ids.length < batchSize) return removed;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Removes up to `batchSize` of the oldest entries (by arrival) while the store holds more than `maxBytes`. */
export async function trimOldestBatch(db: Db, maxBytes: number, batchSize: number): Promise<number> {
  const totals = await db
    .selectFrom('log_totals')
    .select((eb) => [eb.fn.sum<number>('bytes').as('bytes'), eb.fn.sum<number>('entries').as('entries')])
    .executeTakeFirstOrThrow();
  const excess = Number(totals.bytes ?? 0) - maxBytes;
  if (excess <= 0) return 0;
  // About as many entries as the excess holds, so the cap is met without removing much more.
  const average = Number(totals.bytes) / Math.max(1, Number(totals.entries));
  const count = Math.min(batchSize, Math.max(1, Math.ceil(excess / average)));
  const ids = (await db.selectFrom('logs').select('id').orderBy('id').limit(count).execute()).map((r) => r.id);
  if (ids.length === 0) return 0;
  return Number((await db.deleteFrom('logs').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
}
