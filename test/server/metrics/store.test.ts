import { randomUUID } from 'node:crypto';
import { metricResolutions } from '../../../contracts/statistics';
import { deleteInstanceRow, insertInstance } from '../../../server/db/instances';
import { insertSamples, readSamples, seriesIdOf } from '../../../server/db/metrics';
import type { Db } from '../../../server/db/schema';
import { pickResolution, queryMetrics } from '../../../server/metrics/query';
import { maintainMetrics, rollUp } from '../../../server/metrics/retention';
import { averageBuckets, decodeValues, encodeValues, type MetricValues } from '../../../server/metrics/series';
import { closeTestDb, openTestDb } from '../testStore';

// Downsampling and retention with times chosen by the test: which samples fall in which bucket,
// when a bucket is complete enough to roll up, and when each resolution's rows expire.

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
/** A day boundary, so minutes and hours line up with it. */
const t0 = Date.UTC(2030, 0, 2);

let db: Db;
let instanceId: string;
let seriesId: number;

async function raw(at: number, values: MetricValues) {
  await insertSamples(db, [{ seriesId, resolution: 0, at, data: encodeValues(values) }]);
}
const rows = async (resolution: number, from = 0, to = Number.MAX_SAFE_INTEGER) =>
  (await readSamples(db, seriesId, resolution, from, to)).map((row) => ({ at: Number(row.at), values: decodeValues(row.data) }));

beforeEach(async () => {
  db = await openTestDb();
  instanceId = randomUUID();
  await insertInstance(db, {
    id: instanceId, name: 'orders', type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: null, engine_version: '15.0', port: 25000, peer_port: null,
    description: '', created_at: new Date(t0).toISOString(), created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  seriesId = await seriesIdOf(db, instanceId);
});
afterEach(() => closeTestDb(db));

describe('the packed values', () => {
  it('round-trip, keep integers exact, and drop what is absent or not finite', () => {
    const values: MetricValues = { connections_total: 12, tps: 1234.56789123, database_bytes: 52_428_800_123, cache_hit_ratio: 0.998765432, cpu_percent: Number.NaN };
    const packed = encodeValues(values);
    expect(decodeValues(packed)).toEqual({ connections_total: 12, tps: 1234.57, database_bytes: 52_428_800_123, cache_hit_ratio: 0.998765 });
    expect(packed.length).toBeLessThan(120);
  });
});

describe('bucket averages', () => {
  it('put a sample at exactly a bucket start into that bucket, and average each metric over the samples holding it', () => {
    const buckets = averageBuckets(
      [
        { at: t0, values: { tps: 1, data_dir_bytes: 100 } },
        { at: t0 + 10_000, values: { tps: 2 } },
        { at: t0 + 59_999, values: { tps: 3 } },
        { at: t0 + minute, values: { tps: 10 } },
      ],
      minute,
    );
    expect(buckets).toEqual([
      { at: t0, values: { tps: 2, data_dir_bytes: 100 } },
      { at: t0 + minute, values: { tps: 10 } },
    ]);
  });
});

describe('rolling up', () => {
  it('rolls complete minutes only, and the rest once they are complete', async () => {
    for (let at = t0; at < t0 + 3 * minute + 30_000; at += 10_000) await raw(at, { tps: (at - t0) / 10_000 });
    // At 3 min 5 s the fourth minute has begun: three buckets are complete.
    await rollUp(db, seriesId, 1, t0 + 3 * minute + 5000);
    expect(await rows(1)).toEqual([
      { at: t0, values: { tps: 2.5 } }, // 0..5
      { at: t0 + minute, values: { tps: 8.5 } }, // 6..11
      { at: t0 + 2 * minute, values: { tps: 14.5 } }, // 12..17
    ]);
    // At exactly 4 min the fourth minute is complete, though only half of it was sampled.
    await rollUp(db, seriesId, 1, t0 + 4 * minute);
    expect((await rows(1)).map((row) => row.at)).toEqual([t0, t0 + minute, t0 + 2 * minute, t0 + 3 * minute]);
    expect((await rows(1))[3].values.tps).toBe(19); // 18..20
    // Rolling up again writes nothing twice.
    await rollUp(db, seriesId, 1, t0 + 4 * minute);
    expect(await rows(1)).toHaveLength(4);
  });

  it('rolls minutes into hours, in batches over a long backlog', async () => {
    const minutes = Array.from({ length: 3 * 24 * 60 }, (_, i) => ({ seriesId, resolution: 1, at: t0 + i * minute, data: encodeValues({ connections_total: i % 60 }) }));
    for (let i = 0; i < minutes.length; i += 500) await insertSamples(db, minutes.slice(i, i + 500));
    await maintainMetrics(db, t0 + 3 * day);
    const hours = await rows(2);
    expect(hours).toHaveLength(72);
    expect(hours.every((row) => row.values.connections_total === 29.5)).toBe(true);
  });
});

describe('retention', () => {
  it('keeps raw samples a day, minutes 14 days and hours 180 days', async () => {
    const now = t0 + 200 * day;
    const [rawKeep, minuteKeep, hourKeep] = metricResolutions.map((r) => r.keepMs);
    await insertSamples(db, [
      { seriesId, resolution: 0, at: now - rawKeep - 10_000, data: '[1]' },
      { seriesId, resolution: 0, at: now - rawKeep, data: '[2]' },
      { seriesId, resolution: 1, at: now - minuteKeep - minute, data: '[3]' },
      { seriesId, resolution: 1, at: now - minuteKeep, data: '[4]' },
      { seriesId, resolution: 2, at: now - hourKeep - hour, data: '[5]' },
      { seriesId, resolution: 2, at: now - hourKeep, data: '[6]' },
    ]);
    await maintainMetrics(db, now);
    expect((await rows(0)).map((row) => row.at)).toEqual([now - rawKeep]);
    // The kept minute stays (beside the minutes rolled up from the kept raw samples); the expired one is gone.
    expect((await rows(1)).map((row) => row.at)).toContain(now - minuteKeep);
    expect((await rows(1)).map((row) => row.at)).not.toContain(now - minuteKeep - minute);
    expect((await rows(2)).map((row) => row.at)).toContain(now - hourKeep);
    expect((await rows(2)).map((row) => row.at)).not.toContain(now - hourKeep - hour);
  });

  it('removes the series with its instance', async () => {
    await raw(t0, { tps: 1 });
    await deleteInstanceRow(db, instanceId);
    expect(await db.selectFrom('metric_samples').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('metric_series').selectAll().execute()).toEqual([]);
  });
});

describe('reading a range', () => {
  it('picks the finest resolution still kept that gives a chart-sized answer', () => {
    const now = t0 + 30 * day;
    expect(pickResolution(now - hour, now, now)).toBe(0);
    expect(pickResolution(now - day, now, now)).toBe(1);
    expect(pickResolution(now - 7 * day, now, now)).toBe(2);
    expect(pickResolution(now - 30 * day, now, now)).toBe(2);
    // An hour two days ago: raw samples are gone by then.
    expect(pickResolution(now - 2 * day, now - 2 * day + hour, now)).toBe(1);
  });

  it("completes the newest part from the finer resolution not yet rolled up, with the engine's metrics only", async () => {
    for (let at = t0; at < t0 + 5 * minute; at += 10_000) await raw(at, { tps: 6, connections_total: 3 });
    await rollUp(db, seriesId, 1, t0 + 2 * minute); // minutes 0 and 1 rolled up; 2..4 only raw
    const now = t0 + 5 * minute;
    const answer = await queryMetrics(db, instanceId, 'pg', { from: now - day, to: now }, now);
    expect(answer.step).toBe(minute);
    const tps = answer.series.find((s) => s.name === 'tps')!;
    expect(tps).toEqual({ name: 'tps', unit: 'per_s', points: [0, 1, 2, 3, 4].map((i) => [t0 + i * minute, 6]) });
    expect(answer.series.map((s) => s.name)).not.toContain('keys');
    const coarse = await queryMetrics(db, instanceId, 'pg', { from: now - day, to: now, step: 5 * minute, names: ['connections_total'] }, now);
    expect(coarse).toMatchObject({ step: 5 * minute, series: [{ name: 'connections_total', unit: 'count', points: [[t0, 3]] }] });
  });
});
