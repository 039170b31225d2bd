import type { LogEntry } from '../../../contracts/logs';
import type { LogFilterArgs } from './logsApi';

/** Quick time ranges of the Logs screen; `custom` reads `from`/`to` from the URL. */
export const quickRanges = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const;
export const defaultRange = '24h';

/** What the URL holds (useListParams filters plus search). */
export interface LogUrlFilters {
  level?: string;
  instanceId?: string;
  handler?: string;
  search?: string;
  range?: string;
  from?: string;
  to?: string;
}

export const urlFilterNames = ['level', 'instanceId', 'handler', 'range', 'from', 'to'] as const;

/**
 * The API's filters for what the URL says, `now` anchoring a quick range. A quick range has no end,
 * so live entries keep matching it.
 */
export function resolveFilters(url: LogUrlFilters, now: number): LogFilterArgs {
  const range = url.range ?? defaultRange;
  const quick = quickRanges.find((r) => r.value === range);
  const args: LogFilterArgs = {
    ...(url.level && { level: url.level }),
    ...(url.instanceId && { instanceId: url.instanceId }),
    ...(url.handler && { handler: url.handler }),
    ...(url.search?.trim() && { search: url.search.trim() }),
  };
  if (quick) args.from = new Date(now - quick.ms).toISOString();
  else if (range === 'custom') {
    if (url.from && !Number.isNaN(Date.parse(url.from))) args.from = new Date(url.from).toISOString();
    if (url.to && !Number.isNaN(Date.parse(url.to))) args.to = new Date(url.to).toISOString();
  }
  return args;
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** Whether a live entry belongs to the filtered view, as the server would filter it (search: every word). */
export function matchesFilters(filters: LogFilterArgs, entry: LogEntry): boolean {
  if (filters.level && !filters.level.split(',').includes(entry.level)) return false;
  if (filters.instanceId && (filters.instanceId === 'none' ? entry.instanceId !== null : entry.instanceId !== filters.instanceId)) return false;
  if (filters.handler && entry.handler !== filters.handler) return false;
  if (filters.from && entry.timestamp < filters.from) return false;
  if (filters.to && entry.timestamp >= filters.to) return false;
  if (filters.search) {
    const have = new Set([...words(entry.message), ...words(JSON.stringify(entry.properties))]);
    if (!words(filters.search).every((word) => have.has(word))) return false;
  }
  return true;
}
