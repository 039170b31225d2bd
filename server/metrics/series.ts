import { metricNames, type MetricName } from '../../contracts/statistics';

// How samples are kept: values packed as a JSON array in metricDefinitions order (that order is
// append-only, so old rows still read right), and averaged into coarser buckets.

export type MetricValues = Partial<Record<MetricName, number>>;

export interface Sample {
  at: number;
  values: MetricValues;
}

const indexOf = new Map(metricNames.map((name, index) => [name, index]));

/** Six significant digits are more than a chart shows, and keep a row near 150 bytes. */
const compact = (value: number) => (Number.isInteger(value) ? value : Number(value.toPrecision(6)));

export function encodeValues(values: MetricValues): string {
  const packed: (number | null)[] = [];
  for (const [name, value] of Object.entries(values) as [MetricName, number | undefined][]) {
    const index = indexOf.get(name);
    if (index === undefined || value === undefined || !Number.isFinite(value)) continue;
    while (packed.length < index) packed.push(null);
    packed[index] = compact(value);
  }
  return JSON.stringify(packed);
}

export function decodeValues(data: string): MetricValues {
  const values: MetricValues = {};
  const packed = JSON.parse(data) as unknown;
  if (!Array.isArray(packed)) return values;
  packed.forEach((value, index) => {
    const name = metricNames[index];
    if (name !== undefined && typeof value === 'number') values[name] = value;
  });
  return values;
}

export const bucketStart = (at: number, stepMs: number) => Math.floor(at / stepMs) * stepMs;

/**
 * Averages samples (oldest first) into buckets of `stepMs` starting at multiples of it: a sample at
 * exactly a bucket's start belongs to that bucket. Each metric is averaged over the samples that
 * hold it, so a metric sampled only sometimes (data_dir_bytes) is not pulled toward zero.
 */
export function averageBuckets(samples: Sample[], stepMs: number): Sample[] {
  const buckets: Sample[] = [];
  let current: { at: number; sums: Map<MetricName, [number, number]> } | null = null;
  const flush = () => {
    if (!current) return;
    const values: MetricValues = {};
    for (const [name, [sum, count]] of current.sums) values[name] = sum / count;
    buckets.push({ at: current.at, values });
  };
  for (const sample of samples) {
    const at = bucketStart(sample.at, stepMs);
    if (!current || current.at !== at) {
      flush();
      current = { at, sums: new Map() };
    }
    for (const [name, value] of Object.entries(sample.values) as [MetricName, number][]) {
      const sum = current.sums.get(name);
      if (sum) {
        sum[0] += value;
        sum[1] += 1;
      } else {
        current.sums.set(name, [value, 1]);
      }
    }
  }
  flush();
  return buckets;
}
