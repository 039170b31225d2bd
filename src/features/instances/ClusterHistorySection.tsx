import type { ClusterHistoryEntry, ClusterPresetName, ClusterTiming } from '../../../contracts/clusters';
import type { Instance } from '../../../contracts/instances';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/Section';
import { useClusterHistoryQuery, useClusterTimingQuery } from './instancesApi';

const presetNames: Record<ClusterPresetName, string> = { fast: 'Fast', normal: 'Normal', safe: 'Safe' };
const secondsText = (seconds: number) => `${seconds.toLocaleString('en', { maximumFractionDigits: 1 })} s`;

const columns: Column<ClusterHistoryEntry>[] = [
  { key: 'timeline', header: 'Timeline', numeric: true, cell: (entry) => entry.timeline },
  { key: 'at', header: 'When', cell: (entry) => <DateTime value={entry.at} /> },
  { key: 'newLeader', header: 'New leader', cell: (entry) => entry.newLeader ?? '—' },
  { key: 'reason', header: 'Reason', cell: (entry) => entry.reason },
  {
    key: 'writeOutageSeconds',
    header: 'No writer for',
    numeric: true,
    cell: (entry) => (entry.writeOutageSeconds === null ? '—' : secondsText(entry.writeOutageSeconds)),
  },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The preset's computed worst case beside what this cluster's read-write address went through. */
export function timingSummary(timing: ClusterTiming | undefined, history: ClusterHistoryEntry[] | undefined): string | undefined {
  if (!timing) return undefined;
  const detection = (timing.checkIntervalMs * timing.checkFall) / 1000;
  const worst = `${presetNames[timing.preset]} preset: a lost leader is replaced within ${secondsText(timing.worstCaseSeconds)} (computed worst case).`;
  const measured = (history ?? []).flatMap((entry) => (entry.writeOutageSeconds === null ? [] : [entry.writeOutageSeconds]));
  if (measured.length === 0) return `${worst} No failover measured on this cluster yet.`;
  const failovers = measured.length === 1 ? '1 failover' : `${measured.length} failovers`;
  return (
    `${worst} Measured on this cluster over ${failovers}: the read-write address had no writer for ` +
    `${secondsText(median(measured))} (median), ${secondsText(Math.max(...measured))} at most, plus up to ${secondsText(detection)} for HAProxy to notice.`
  );
}

/**
 * A PostgreSQL cluster's timelines: each began when a member was promoted, by a failover or a
 * switchover, with how long a lost leader left the read-write address without a writer (HAProxy's
 * log; a switchover is not measured there). Read again whenever the hub says the instance changed.
 */
export function ClusterHistorySection({ instance }: { instance: Pick<Instance, 'id'> }) {
  const { data, isLoading, isFetching, isError, refetch } = useClusterHistoryQuery(instance.id);
  const { data: timing } = useClusterTimingQuery(instance.id);
  return (
    <Section title="Failovers and switchovers" description={timingSummary(timing, data)}>
      <DataTable
        label="Failovers and switchovers"
        columns={columns}
        rows={data}
        rowKey={(entry) => String(entry.timeline)}
        loading={isLoading}
        fetching={isFetching}
        failed={isError}
        onRetry={refetch}
        emptyText="No failover or switchover yet."
      />
    </Section>
  );
}
