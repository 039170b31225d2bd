import {
  metricDefinitions,
  metricResolutions,
  metricUnitOf,
  type MetricName,
  type MetricSeries,
  type MetricsResponse,
  type SparklinesResponse,
} from '../../contracts/statistics';
import type { InstanceType } from '../../contracts/instanceValues';
import { findSeriesId, readRecentSamples, readSamples, type RecentSampleRow } from '../db/metrics';
import type { Db } from '../db/schema';
import { averageBuckets, bucketStart, decodeValues, type Sample } from './series';

// GET /instances/{id}/metrics: the finest resolution still kept for the range that gives a
// chart-sized answer, its newest part completed from the finer resolution not yet rolled up.

/** About the points a chart draws across its width. */
export const maxPoints = 1500;

export interface MetricsRange {
  from: number;
  to: number;
  /** A coarser spacing than the store's, in ms. */
  step?: number;
  names?: MetricName[];
}

export function pickResolution(from: number, to: number, now: number): number {
  const index = metricResolutions.findIndex(({ stepMs, keepMs }) => from >= now - keepMs && (to - from) / stepMs <= maxPoints);
  return index === -1 ? metricResolutions.length - 1 : index;
}

/** Samples of [from, to) at a resolution; past the newest stored one, the finer resolution's averaged. */
async function readLevel(db: Db, seriesId: number, resolution: number, from: number, to: number): Promise<Sample[]> {
  const rows = await readSamples(db, seriesId, resolution, from, to);
  const samples = rows.map((row) => ({ at: Number(row.at), values: decodeValues(row.data) }));
  if (resolution === 0) return samples;
  const { stepMs } = metricResolutions[resolution];
  const last = samples[samples.length - 1];
  const tailFrom = last ? last.at + stepMs : from;
  if (tailFrom >= to) return samples;
  return samples.concat(averageBuckets(await readLevel(db, seriesId, resolution - 1, tailFrom, to), stepMs));
}

/** One metric's [at, value] points; a sample without it is a gap. */
function pointsOf(samples: Sample[], name: MetricName): [number, number][] {
  return samples.flatMap((sample): [number, number][] => {
    const value = sample.values[name];
    return value === undefined ? [] : [[sample.at, value]];
  });
}

export async function queryMetrics(db: Db, instanceId: string, type: InstanceType, range: MetricsRange, now: number): Promise<MetricsResponse> {
  const resolution = pickResolution(range.from, range.to, now);
  let step: number = metricResolutions[resolution].stepMs;
  const definitions = metricDefinitions.filter(
    (metric) => (metric.engines as readonly InstanceType[]).includes(type) && (!range.names || range.names.includes(metric.name)),
  );
  const seriesId = await findSeriesId(db, instanceId);
  let samples = seriesId === undefined ? [] : await readLevel(db, seriesId, resolution, range.from, range.to);
  if (range.step !== undefined && range.step > step) {
    step = range.step;
    samples = averageBuckets(samples, step);
  }
  const series: MetricSeries[] = definitions.map((metric) => ({
    name: metric.name,
    unit: metric.unit,
    points: pointsOf(samples, metric.name),
  }));
  return { series, step, from: range.from, to: range.to };
}

/** A sparkline's points: the last hour a minute apart, the current minute included. */
const sparklineResolution = 1;
const sparklinePoints = 60;

/** Samples of one instance's rows: its minutes, then its newer raw samples averaged into minutes. */
function minutesOf(rows: RecentSampleRow[], stepMs: number): Sample[] {
  const decoded = (resolution: number) =>
    rows.filter((row) => row.resolution === resolution).map((row) => ({ at: row.at!, values: decodeValues(row.data!) }));
  return decoded(sparklineResolution).concat(averageBuckets(decoded(sparklineResolution - 1), stepMs));
}

/**
 * GET /instances/sparklines: one metric of the named instances in `groupIds` (null: all) over
 * the last hour at one-minute resolution, read in one store query whatever the number of ids.
 */
export async function querySparklines(db: Db, instanceIds: string[], groupIds: string[] | null, name: MetricName, now: number): Promise<SparklinesResponse> {
  const { stepMs } = metricResolutions[sparklineResolution];
  const to = bucketStart(now, stepMs) + stepMs;
  const from = to - sparklinePoints * stepMs;
  const rows = await readRecentSamples(db, instanceIds, groupIds, sparklineResolution, stepMs, from, to);
  const byInstance = new Map<string, RecentSampleRow[]>();
  for (const row of rows) {
    const instanceRows = byInstance.get(row.instanceId);
    if (instanceRows) instanceRows.push(row);
    else byInstance.set(row.instanceId, [row]);
  }
  const items = [...byInstance].map(([instanceId, instanceRows]) => ({ instanceId, points: pointsOf(minutesOf(instanceRows, stepMs), name) }));
  return { name, unit: metricUnitOf[name], step: stepMs, from, to, items };
}
