import { Badge } from '@chakra-ui/react';
import type { Instance, InstanceMember } from '../../../contracts/instances';
import { DataTable, type Column } from '../../components/DataTable';
import { Section } from '../../components/Section';
import { useMembersQuery } from './instancesApi';

const roleLabels: Record<InstanceMember['role'], string> = { leader: 'Leader', sync_standby: 'Sync standby', replica: 'Replica', member: 'Member' };
const stateLabels: Record<InstanceMember['state'], string> = { running: 'Running', stopped: 'Stopped', unreachable: 'Not answering' };
const statePalette: Record<InstanceMember['state'], string> = { running: 'green', stopped: 'red', unreachable: 'orange' };

const columns: Column<InstanceMember>[] = [
  { key: 'name', header: 'Member', cell: (m) => m.name },
  { key: 'role', header: 'Role', cell: (m) => (m.state === 'running' ? roleLabels[m.role] : '—') },
  {
    key: 'state',
    header: 'State',
    cell: (m) => (
      <Badge variant="outline" colorPalette={statePalette[m.state]}>
        {stateLabels[m.state]}
      </Badge>
    ),
  },
  { key: 'address', header: 'Address', cell: (m) => `${m.host}:${m.port}` },
  { key: 'raftIndex', header: 'Raft index', numeric: true, cell: (m) => (m.raftIndex === null ? '—' : m.raftIndex.toLocaleString()) },
  { key: 'dbSize', header: 'Database size', numeric: true, cell: (m) => (m.dbSizeBytes === null ? '—' : `${(m.dbSizeBytes / 1024 / 1024).toFixed(1)} MiB`) },
];

/**
 * The members of a clustered instance (an etcd cluster of 3 or 5): who leads, which are down, each
 * one's raft index. Read again whenever the hub says the instance changed.
 */
export function MembersSection({ instance }: { instance: Pick<Instance, 'id' | 'members'> }) {
  const { data, isLoading, isFetching, isError, refetch } = useMembersQuery(instance.id);
  return (
    <Section title="Members" description={`${instance.members} members: the cluster writes while a majority of them answer.`}>
      <DataTable
        label="Members"
        columns={columns}
        rows={data}
        rowKey={(m) => String(m.ordinal)}
        loading={isLoading}
        fetching={isFetching}
        failed={isError}
        onRetry={refetch}
        emptyText="No members yet: the instance has not started."
      />
    </Section>
  );
}
