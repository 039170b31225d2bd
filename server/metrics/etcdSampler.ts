import type { InstanceRuntime } from '../engines/engine';
import type { MetricValues } from './series';

// etcd's figures from its Prometheus endpoint on the client URL (the engine listens on loopback).

export const etcdFetchTimeoutMs = 2000;

/** The Prometheus series read, summed over their labels. */
const wanted = {
  db_size_bytes: 'etcd_mvcc_db_total_size_in_bytes',
  db_in_use_bytes: 'etcd_mvcc_db_total_size_in_use_in_bytes',
  keys: 'etcd_debugging_mvcc_keys_total',
  proposals_committed: 'etcd_server_proposals_committed_total',
  proposals_failed: 'etcd_server_proposals_failed_total',
  leader_changes: 'etcd_server_leader_changes_seen_total',
  requests: 'grpc_server_handled_total',
} as const;
type Wanted = keyof typeof wanted;

/**
 * Sums of the wanted series in Prometheus text. The text runs to hundreds of kilobytes of
 * histograms, so lines are only compared by their first characters, never split all at once.
 */
export function parsePrometheus(text: string): Partial<Record<Wanted, number>> {
  const sums: Partial<Record<Wanted, number>> = {};
  const names = Object.entries(wanted) as [Wanted, string][];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const first = text.charCodeAt(start);
    // 'e' (etcd_…) or 'g' (grpc_…): everything else, comments included, is skipped unread.
    if (first === 101 || first === 103) {
      for (const [key, name] of names) {
        if (!text.startsWith(name, start)) continue;
        const after = text.charCodeAt(start + name.length);
        if (after !== 32 && after !== 123) continue; // ' ' or '{': not a longer name sharing the prefix
        const value = Number(text.slice(text.lastIndexOf(' ', end - 1) + 1, end));
        if (Number.isFinite(value)) sums[key] = (sums[key] ?? 0) + value;
        break;
      }
    }
    start = end + 1;
  }
  return sums;
}

export class EtcdSampler {
  private previous: { at: number; committed?: number; failed?: number; requests?: number } | null = null;

  constructor(private readonly rt: InstanceRuntime) {}

  async sample(at: number): Promise<MetricValues> {
    const response = await fetch(`http://127.0.0.1:${this.rt.port}/metrics`, { signal: AbortSignal.timeout(etcdFetchTimeoutMs) });
    if (!response.ok) throw new Error(`etcd answered ${response.status} for /metrics`);
    const sums = parsePrometheus(await response.text());
    const values: MetricValues = {};
    if (sums.db_size_bytes !== undefined) values.db_size_bytes = sums.db_size_bytes;
    if (sums.db_in_use_bytes !== undefined) values.db_in_use_bytes = sums.db_in_use_bytes;
    if (sums.keys !== undefined) values.keys = sums.keys;
    if (sums.leader_changes !== undefined) values.leader_changes = sums.leader_changes;
    const current = { at, committed: sums.proposals_committed, failed: sums.proposals_failed, requests: sums.requests };
    const previous = this.previous;
    this.previous = current;
    if (previous) {
      const seconds = (at - previous.at) / 1000;
      const rate = (before?: number, now?: number) =>
        before === undefined || now === undefined || now < before || seconds <= 0 ? undefined : (now - before) / seconds;
      const rates = {
        proposals_committed: rate(previous.committed, current.committed),
        proposals_failed: rate(previous.failed, current.failed),
        requests_per_s: rate(previous.requests, current.requests),
      };
      for (const [name, value] of Object.entries(rates)) if (value !== undefined) values[name as keyof typeof rates] = value;
    }
    return values;
  }

  async close(): Promise<void> {
    this.previous = null;
  }
}
