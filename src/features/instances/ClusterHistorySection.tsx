import type { ClusterHistoryEntry } from '../../../contracts/clusters';
import type { Instance } from '../../../contracts/instances';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/Section';
import { useClusterHistoryQuery } from './instancesApi';

const columns: Column<ClusterHistoryEntry>[] = [
  { key: 'timeline', header: 'Timeline', numeric: true, cell: (entry) => entry.timeline },
  { key: 'at', header: 'When', cell: (entry) => <DateTime value={entry.at} /> },
  { key: 'newLeader', header: 'New leader', cell: (entry) => entry.newLeader ?? '—' },
  { key: 'reason', header: 'Reason', cell: (entry) => entry.reason },
];

/**
 * A PostgreSQL cluster's timelines: each began when a member was promoted, by a failover or a
 * switchover. Read again whenever the hub says the instance changed.
 */
export function ClusterHistorySection({ instance }: { instance: Pick<Instance, 'id'> }) {
  const { data, isLoading, isFetching, isError, refetch } = useClusterHistoryQuery(instance.id);
  return (
    <Section title="Failovers and switchovers">
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
