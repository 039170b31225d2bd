/**
 * The ranges the monitoring charts offer, each ending now. The step keeps a range near a thousand
 * points at most: the finest the store keeps for the last hour, coarser averages further back.
 */
export const metricRanges = [
  { value: '1h', label: '1 hour', ms: 3_600_000, stepMs: 10_000 },
  { value: '24h', label: '24 hours', ms: 86_400_000, stepMs: 60_000 },
  { value: '7d', label: '7 days', ms: 7 * 86_400_000, stepMs: 600_000 },
  { value: '30d', label: '30 days', ms: 30 * 86_400_000, stepMs: 3_600_000 },
] as const;

export type MetricRange = (typeof metricRanges)[number]['value'];
export const defaultMetricRange: MetricRange = '1h';

export const metricRange = (value: MetricRange) => metricRanges.find((range) => range.value === value) ?? metricRanges[0];
