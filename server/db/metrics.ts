import { sql, type Expression } from 'kysely';
import { larger } from './storeSql';
import type { Db } from './schema';

// The metric series of instances (server/metrics): one row per instance, resolution and time, the
// values packed as JSON text (server/metrics/codec.ts). Rows go with the instance (ON DELETE CASCADE).

export interface StoredSample {
  at: number;
  data: string;
}

/** The series id of an instance, made on first use. */
export async function seriesIdOf(db: Db, instanceId: string): Promise<number> {
  const found = await db.selectFrom('metric_series').select('id').where('instance_id', '=', instanceId).executeTakeFirst();
  if (found) return found.id;
  await db.insertInto('metric_series').values({ instance_id: instanceId, size_bytes: null }).onConflict((oc) => oc.column('instance_id').doNothing()).execute();
  const made = await db.selectFrom('metric_series').select('id').where('instance_id', '=', instanceId).executeTakeFirstOrThrow();
  return made.id;
}

/** The series of an instance, or undefined before its first sample. */
export async function findSeriesId(db: Db, instanceId: string): Promise<number | undefined> {
  return (await db.selectFrom('metric_series').select('id').where('instance_id', '=', instanceId).executeTakeFirst())?.id;
}

export async function allSeriesIds(db: Db): Promise<number[]> {
  return (await db.selectFrom('metric_series').select('id').orderBy('id').execute()).map((row) => row.id);
}

/** The data folder's size as the probes last measured it, or null before. */
export async function measuredSize(db: Db, instanceId: string): Promise<number | null> {
  return (await db.selectFrom('metric_series').select('size_bytes').where('instance_id', '=', instanceId).executeTakeFirst())?.size_bytes ?? null;
}

export async function setMeasuredSize(db: Db, seriesId: number, bytes: number): Promise<void> {
  await db.updateTable('metric_series').set({ size_bytes: bytes }).where('id', '=', seriesId).execute();
}

export async function insertSamples(db: Db, rows: { seriesId: number; resolution: number; at: number; data: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('metric_samples')
    .values(rows.map((row) => ({ series_id: row.seriesId, resolution: row.resolution, at: row.at, data: row.data })))
    // A rollup bucket written again (a restart in the middle of a run) keeps the first.
    .onConflict((oc) => oc.columns(['series_id', 'resolution', 'at']).doNothing())
    .execute();
}

/** Samples of one series and resolution in [from, to), oldest first, at most `limit`. */
export async function readSamples(db: Db, seriesId: number, resolution: number, from: number, to: number, limit = 100_000): Promise<StoredSample[]> {
  return db
    .selectFrom('metric_samples')
    .select(['at', 'data'])
    .where('series_id', '=', seriesId)
    .where('resolution', '=', resolution)
    .where('at', '>=', from)
    .where('at', '<', to)
    .orderBy('at')
    .limit(limit)
    .execute();
}

export interface RecentSampleRow {
  instanceId: string;
  /** Null (with `at` and `data`) in the row that says the instance is in scope. */
  resolution: number | null;
  at: number | null;
  data: string | null;
}

/**
 * In one query, the samples of [from, to) of the named instances in `groupIds` (null: any, an
 * admin's scope): the rows of `resolution`, then the finer ones past the newest of those (the
 * minutes not rolled up yet), ordered by instance, resolution (coarser first) and time; and a row
 * of nulls for each such instance, so one without samples is still answered. An instance out of
 * scope or unknown has no row. Each part is an index range, so the rows read are the rows answered.
 */
export async function readRecentSamples(
  db: Db,
  instanceIds: string[],
  groupIds: string[] | null,
  resolution: number,
  stepMs: number,
  from: number,
  to: number,
): Promise<RecentSampleRow[]> {
  if (instanceIds.length === 0 || groupIds?.length === 0) return [];
  const inScope = () =>
    db
      .selectFrom('instances as i')
      .where('i.id', 'in', instanceIds)
      .$if(groupIds !== null, (query) => query.where('i.group_id', 'in', groupIds!));
  const samplesSince = (of: number, since: Expression<number>) =>
    inScope()
      .innerJoin('metric_series as ms', 'ms.instance_id', 'i.id')
      .innerJoin('metric_samples as s', (join) =>
        join.onRef('s.series_id', '=', 'ms.id').on('s.resolution', '=', of).on('s.at', '>=', since).on('s.at', '<', to),
      )
      .select(['i.id as instanceId', sql<number | null>`s.resolution`.as('resolution'), sql<number | null>`s.at`.as('at'), sql<string | null>`s.data`.as('data')]);
  const newestRolledUp = sql<number>`(select max(r.at) from metric_samples r where r.series_id = ms.id and r.resolution = ${resolution})`;
  const rows = await samplesSince(resolution, sql.lit(from))
    .unionAll(samplesSince(resolution - 1, larger(db, sql.lit(from), sql<number>`coalesce(${newestRolledUp} + ${sql.lit(stepMs)}, 0)`)))
    .unionAll(
      inScope().select([
        'i.id as instanceId',
        sql<number | null>`null`.as('resolution'),
        sql<number | null>`null`.as('at'),
        sql<string | null>`null`.as('data'),
      ]),
    )
    .orderBy('instanceId')
    .orderBy('resolution', 'desc')
    .orderBy('at')
    .execute();
  return rows.map((row) => ({ ...row, at: row.at === null ? null : Number(row.at) }));
}

/** The newest sample time of a series at a resolution, or null. */
export async function newestSampleAt(db: Db, seriesId: number, resolution: number): Promise<number | null> {
  const row = await db
    .selectFrom('metric_samples')
    .select('at')
    .where('series_id', '=', seriesId)
    .where('resolution', '=', resolution)
    .orderBy('at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.at) : null;
}

/** The oldest sample time of a series at a resolution, or null. */
export async function oldestSampleAt(db: Db, seriesId: number, resolution: number): Promise<number | null> {
  const row = await db
    .selectFrom('metric_samples')
    .select('at')
    .where('series_id', '=', seriesId)
    .where('resolution', '=', resolution)
    .orderBy('at')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.at) : null;
}

/** Removes one series' samples of a resolution older than `before`; answers how many. */
export async function deleteSamplesBefore(db: Db, seriesId: number, resolution: number, before: number): Promise<number> {
  const result = await db
    .deleteFrom('metric_samples')
    .where('series_id', '=', seriesId)
    .where('resolution', '=', resolution)
    .where('at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
