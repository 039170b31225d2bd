import { formatBytes } from '../../../contracts/backupValues';
import type { MetricUnit } from '../../../contracts/statistics';

const decimal = (value: number, digits = 1) =>
  value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) >= 100 ? 0 : digits });

function duration(seconds: number): string {
  if (seconds < 60) return `${decimal(seconds)} s`;
  if (seconds < 3600) return `${decimal(seconds / 60)} min`;
  if (seconds < 86_400) return `${decimal(seconds / 3600)} h`;
  return `${decimal(seconds / 86_400)} d`;
}

/** A metric's value in words an operator reads: bytes in kB/MB/GB, ratios as percent, rates per second. */
export function formatMetric(value: number | null | undefined, unit: MetricUnit): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  switch (unit) {
    case 'bytes':
      return formatBytes(Math.round(value));
    case 'bytes_per_s':
      return `${formatBytes(Math.round(value))}/s`;
    case 'per_s':
      return `${decimal(value, 2)}/s`;
    case 'ratio':
      return `${decimal(value * 100, 2)} %`;
    case 'percent':
      return `${decimal(value)} %`;
    case 'seconds':
      return duration(value);
    case 'count':
      return decimal(value);
  }
}
