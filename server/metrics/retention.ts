import { metricResolutions } from '../../contracts/statistics';
import { allSeriesIds, deleteSamplesBefore, insertSamples, newestSampleAt, oldestSampleAt, readSamples } from '../db/metrics';
import type { Db } from '../db/schema';
import { averageBuckets, bucketStart, decodeValues, encodeValues } from './series';

// Downsampling and retention (DESIGN §10): 10 s samples are kept a day, their one-minute averages
// 14 days and the hourly averages of those 180 days. Work is done a series and a resolution at a
// time, in batches, so the store is never held for long.

/** Source rows read per step: a day of minutes, or more than two hours of raw samples. */
const batchRows = 1440;

/**
 * Rolls complete buckets of one series up one resolution (1: minutes from raw, 2: hours from
 * minutes): every bucket after the newest already rolled up whose end is not after `now`.
 * Answers the buckets written; call again while it answers a full batch.
 */
export async function rollUp(db: Db, seriesId: number, resolution: number, now: number): Promise<number> {
  const { stepMs } = metricResolutions[resolution];
  const done = await newestSampleAt(db, seriesId, resolution);
  const oldestSource = done === null ? await oldestSampleAt(db, seriesId, resolution - 1) : null;
  if (done === null && oldestSource === null) return 0;
  const from = done !== null ? done + stepMs : bucketStart(oldestSource!, stepMs);
  const to = bucketStart(now, stepMs);
  if (from >= to) return 0;
  const rows = await readSamples(db, seriesId, resolution - 1, from, to, batchRows);
  let buckets = averageBuckets(rows.map((row) => ({ at: Number(row.at), values: decodeValues(row.data) })), stepMs);
  // A full batch may end inside a bucket: that bucket waits for the next batch.
  if (rows.length === batchRows && buckets.length > 1) buckets = buckets.slice(0, -1);
  await insertSamples(db, buckets.map((bucket) => ({ seriesId, resolution, at: bucket.at, data: encodeValues(bucket.values) })));
  return rows.length === batchRows ? buckets.length : 0;
}

/** Drops what each resolution keeps no longer. */
export async function trim(db: Db, seriesId: number, now: number): Promise<number> {
  let removed = 0;
  for (const [resolution, { keepMs }] of metricResolutions.entries()) {
    removed += await deleteSamplesBefore(db, seriesId, resolution, now - keepMs);
  }
  return removed;
}

/** One maintenance pass over every series: roll up, then trim. */
export async function maintainMetrics(db: Db, now: number): Promise<void> {
  for (const seriesId of await allSeriesIds(db)) {
    for (let resolution = 1; resolution < metricResolutions.length; resolution += 1) {
      while ((await rollUp(db, seriesId, resolution, now)) > 0);
    }
    await trim(db, seriesId, now);
  }
}
