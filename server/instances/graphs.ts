import type { GraphBucket, GraphPoint, GraphsResponse } from '../../contracts/instances';
import type { InstanceType } from '../../contracts/instanceValues';
import { countCreatedBefore, creationsPerDay } from '../db/instances';
import type { Db } from '../db/schema';

const day = (date: Date) => date.toISOString().slice(0, 10);

/** The first day (UTC) of the bucket holding `date`; weeks start on Monday. */
export function bucketStart(date: Date, bucket: GraphBucket): Date {
  const start = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  if (bucket === 'week') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  if (bucket === 'month') start.setUTCDate(1);
  return start;
}

export function nextBucket(start: Date, bucket: GraphBucket): Date {
  const next = new Date(start);
  if (bucket === 'day') next.setUTCDate(next.getUTCDate() + 1);
  else if (bucket === 'week') next.setUTCDate(next.getUTCDate() + 7);
  else next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

/** The most buckets one answer holds (about 15 years of days). */
export const maxGraphPoints = 5500;

/**
 * Instance creations over [from, to] (whole UTC days) per bucket and type, every bucket present
 * (zeros included), with the running total of creations since the first instance. Only the
 * instances of `visibleGroupIds` count (null: all of them, for admins).
 */
export async function creationGraph(
  db: Db,
  query: { from: string; to: string; bucket: GraphBucket; type?: InstanceType; visibleGroupIds: string[] | null },
): Promise<GraphsResponse> {
  const first = bucketStart(new Date(`${query.from}T00:00:00Z`), query.bucket);
  const end = new Date(`${query.to}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  const points: GraphPoint[] = [];
  const index = new Map<string, GraphPoint>();
  for (let start = first; start < end; start = nextBucket(start, query.bucket)) {
    if (points.length >= maxGraphPoints) break;
    const point = { bucket: day(start), pg: 0, etcd: 0, total: 0, cumulative: 0 };
    points.push(point);
    index.set(point.bucket, point);
  }
  const last = points.length > 0 ? nextBucket(new Date(`${points[points.length - 1].bucket}T00:00:00Z`), query.bucket) : end;
  for (const row of await creationsPerDay(db, first.toISOString(), last.toISOString(), query.type, query.visibleGroupIds)) {
    const point = index.get(day(bucketStart(new Date(`${row.day}T00:00:00Z`), query.bucket)));
    if (!point) continue;
    point[row.type] += row.count;
    point.total += row.count;
  }
  let running = await countCreatedBefore(db, first.toISOString(), query.type, query.visibleGroupIds);
  for (const point of points) {
    running += point.total;
    point.cumulative = running;
  }
  return { bucket: query.bucket, from: query.from, to: query.to, points };
}
