import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { GraphsQuery } from '../../../contracts/instances';
import { graphBuckets, instanceTypes, type GraphBucket, type InstanceType } from '../../../contracts/instanceValues';

export { graphBuckets };

/** A calendar day as the API takes it, YYYY-MM-DD in UTC (the server buckets in UTC). */
export const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function isDay(text: string | null): text is string {
  return text !== null && /^\d{4}-\d{2}-\d{2}$/.test(text) && isoDay(new Date(`${text}T00:00:00Z`)) === text;
}

function shifted(day: string, { days = 0, months = 0 }: { days?: number; months?: number }): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months, date.getUTCDate() + days);
  return isoDay(date);
}

export interface Preset {
  label: string;
  bucket: GraphBucket;
  /** The range ending today. */
  range: (today: string) => { from: string; to: string };
}

export const presets: Preset[] = [
  { label: 'Last 30 days', bucket: 'day', range: (today) => ({ from: shifted(today, { days: -29 }), to: today }) },
  { label: 'Last 90 days', bucket: 'week', range: (today) => ({ from: shifted(today, { days: -89 }), to: today }) },
  // This month and the eleven before it, so each bar is a whole calendar month but the last.
  { label: 'Last 12 months', bucket: 'month', range: (today) => ({ from: shifted(`${today.slice(0, 7)}-01`, { months: -11 }), to: today }) },
];

export interface GraphParams {
  from: string;
  to: string;
  bucket: GraphBucket;
  type: InstanceType | undefined;
}

/**
 * The graph's range, bucket and type filter, kept in the URL query so a reload or a shared link
 * shows the same graph. Without them: the last 30 days by day, both types.
 */
export function useGraphParams(today: string = isoDay(new Date())) {
  const [searchParams, setSearchParams] = useSearchParams();
  const query = searchParams.toString();

  const params = useMemo((): GraphParams => {
    const read = new URLSearchParams(query);
    const fallback = presets[0].range(today);
    const bucket = read.get('bucket');
    const type = read.get('type');
    return {
      from: isDay(read.get('from')) ? read.get('from')! : fallback.from,
      to: isDay(read.get('to')) ? read.get('to')! : fallback.to,
      bucket: graphBuckets.find((known) => known === bucket) ?? presets[0].bucket,
      type: instanceTypes.find((known) => known === type),
    };
  }, [query, today]);

  const update = useCallback(
    (patch: Partial<GraphParams>) => {
      const next = new URLSearchParams(query);
      for (const [name, value] of Object.entries(patch)) {
        if (value) next.set(name, value);
        else next.delete(name);
      }
      setSearchParams(next);
    },
    [query, setSearchParams],
  );

  /** What the API is asked, or null while the range is backwards. */
  const request: GraphsQuery | null =
    params.from <= params.to ? { from: params.from, to: params.to, bucket: params.bucket, ...(params.type && { type: params.type }) } : null;

  return { params, request, today, update };
}
