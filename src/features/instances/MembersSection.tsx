import { Badge, Button, HStack, Text } from '@chakra-ui/react';
import { formatBytes } from '../../../contracts/backupValues';
import type { Instance, InstanceMember } from '../../../contracts/instances';
import { hasRole } from '../../../contracts/roles';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { DataTable, type Column } from '../../components/DataTable';
import { Section } from '../../components/Section';
import { selectCurrentUser } from '../auth/selectors';
import {
  failoverPauseRequested,
  failoverRequested,
  memberActionRequested,
  memberAddRequested,
  memberRemoveRequested,
  switchoverCancelRequested,
  switchoverRequested,
} from './clusterSaga';
import { useMembersQuery } from './instancesApi';
import { switchoverCandidates } from './SwitchoverModal';

const roleLabels: Record<InstanceMember['role'], string> = { leader: 'Leader', sync_standby: 'Sync standby', replica: 'Replica', member: 'Member' };
const stateLabels: Record<InstanceMember['state'], string> = { running: 'Running', stopped: 'Stopped', unreachable: 'Not answering' };
const statePalette: Record<InstanceMember['state'], string> = { running: 'green', stopped: 'red', unreachable: 'orange' };

const commonColumns: Column<InstanceMember>[] = [
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
];

const etcdColumns: Column<InstanceMember>[] = [
  ...commonColumns,
  { key: 'raftIndex', header: 'Raft index', numeric: true, cell: (m) => (m.raftIndex === null ? '—' : m.raftIndex.toLocaleString()) },
  { key: 'dbSize', header: 'Database size', numeric: true, cell: (m) => (m.dbSizeBytes === null ? '—' : `${(m.dbSizeBytes / 1024 / 1024).toFixed(1)} MiB`) },
];

/** A replica's lag in bytes and, when PostgreSQL knows it, in seconds. */
function lagText(m: InstanceMember): string {
  // The leader is what the others lag behind.
  if (m.role === 'leader' || m.lagBytes === null) return '—';
  return m.lagSeconds === null ? formatBytes(m.lagBytes) : `${formatBytes(m.lagBytes)} · ${m.lagSeconds < 10 ? m.lagSeconds.toFixed(1) : Math.round(m.lagSeconds)} s`;
}

const pgColumns: Column<InstanceMember>[] = [
  ...commonColumns.map((column) =>
    column.key === 'state'
      ? {
          ...column,
          cell: (m: InstanceMember) => (
            <HStack gap="1" wrap="wrap">
              {column.cell(m)}
              {m.pendingRestart && (
                <Badge variant="subtle" colorPalette="orange">
                  Restart pending
                </Badge>
              )}
            </HStack>
          ),
        }
      : column,
  ),
  { key: 'timeline', header: 'Timeline', numeric: true, cell: (m) => m.timeline ?? '—' },
  { key: 'lag', header: 'Lag', numeric: true, cell: lagText },
];

type ClusterInstance = Pick<Instance, 'id' | 'name' | 'members' | 'type' | 'health' | 'status' | 'operation'>;

/**
 * The members of a clustered instance (an etcd cluster of 3 or 5, a PostgreSQL cluster on Patroni):
 * who leads, which are down, how far each is behind. Read again whenever the hub says the instance changed.
 */
export function MembersSection({ instance }: { instance: ClusterInstance }) {
  const { data, isLoading, isFetching, isError, refetch } = useMembersQuery(instance.id);
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const pg = instance.type === 'pg';
  return (
    <Section
      title="Members"
      description={
        pg
          ? `${instance.members} members: the cluster's writes go to the leader through the read-write address; a replica takes over when the leader is lost.`
          : `${instance.members} members: the cluster writes while a majority of them answer.`
      }
      actions={pg ? <ClusterActions instance={instance} members={data} /> : <AddMember instance={instance} />}
    >
      <DataTable
        label="Members"
        columns={pg ? [...pgColumns, memberActionsColumn(instance, isAdmin)] : [...etcdColumns, removeColumn(instance)]}
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

// The server refuses a second operation (409) and acts only on a running cluster; a failover is
// also what a cluster left without a leader (offline) needs.
const idle = (instance: ClusterInstance) => instance.operation === null && instance.status === 'running';
const canFailOver = (instance: ClusterInstance) => instance.operation === null && (instance.status === 'running' || instance.status === 'offline');

/** Pausing automatic failover (maintenance) shows as a health check of its own while it lasts. */
const failoverPaused = (instance: ClusterInstance) => instance.health.checks.some((check) => check.name === 'failover');
/** So does a switchover scheduled for later: its check says when, and between which members. */
const scheduledSwitchover = (instance: ClusterInstance) => instance.health.checks.find((check) => check.name === 'switchover')?.message ?? null;

function ClusterActions({ instance, members }: { instance: ClusterInstance; members: InstanceMember[] | undefined }) {
  const dispatch = useAppDispatch();
  const paused = failoverPaused(instance);
  const hasCandidate = switchoverCandidates(members ?? []).length > 0;
  const scheduled = scheduledSwitchover(instance);
  return (
    <HStack gap="2" wrap="wrap" role="group" aria-label="Cluster operations">
      {scheduled && (
        <>
          <Text fontSize="sm">Switchover {scheduled}</Text>
          <Button size="sm" variant="outline" disabled={!idle(instance)} onClick={() => dispatch(switchoverCancelRequested({ instance }))}>
            Cancel switchover
          </Button>
        </>
      )}
      <Button
        size="sm"
        variant="outline"
        disabled={!idle(instance) || !hasCandidate}
        onClick={() => members && dispatch(switchoverRequested({ instance, members }))}
      >
        Switch over
      </Button>
      <Button size="sm" variant="outline" disabled={!idle(instance)} onClick={() => dispatch(failoverPauseRequested({ instance, paused: !paused }))}>
        {paused ? 'Resume failover' : 'Pause failover'}
      </Button>
      <AddMember instance={instance} />
    </HStack>
  );
}

function memberActionsColumn(instance: ClusterInstance, isAdmin: boolean): Column<InstanceMember> {
  return { key: 'actions', header: 'Actions', hiddenHeader: true, cell: (m) => <MemberActions instance={instance} member={m} isAdmin={isAdmin} /> };
}

function MemberActions({ instance, member, isAdmin }: { instance: ClusterInstance; member: InstanceMember; isAdmin: boolean }) {
  const dispatch = useAppDispatch();
  const { ordinal } = member;
  // The member's own Patroni does the work: one that does not answer cannot be asked.
  const canAct = idle(instance) && member.state !== 'unreachable';
  const leads = member.role === 'leader';
  return (
    <HStack gap="2" justify="end" wrap="wrap">
      <Button
        size="xs"
        variant="outline"
        aria-label={`Restart member ${ordinal}`}
        disabled={!canAct}
        onClick={() => dispatch(memberActionRequested({ instance, ordinal, action: 'restart' }))}
      >
        Restart
      </Button>
      {!leads && (
        <Button
          size="xs"
          variant="outline"
          aria-label={`Rebuild member ${ordinal}`}
          disabled={!canAct}
          onClick={() => dispatch(memberActionRequested({ instance, ordinal, action: 'reinitialize' }))}
        >
          Rebuild
        </Button>
      )}
      {isAdmin && !leads && member.state === 'running' && (
        <Button
          size="xs"
          variant="outline"
          colorPalette="red"
          aria-label={`Fail over to member ${ordinal}`}
          disabled={!canFailOver(instance)}
          onClick={() => dispatch(failoverRequested({ instance, ordinal }))}
        >
          Fail over
        </Button>
      )}
      {/* The last replica may go while more than two members are left; the leader stays until a switchover. */}
      {ordinal === instance.members && !leads && instance.members > pgMemberFloor && <RemoveMember instance={instance} ordinal={ordinal} />}
    </HStack>
  );
}

/** The most members a cluster has, and the fewest a PostgreSQL cluster keeps. */
const memberLimit = 5;
const pgMemberFloor = 2;

/** A cluster grows one member at a time: etcd's own member add, or a replica Patroni copies from the leader. */
function AddMember({ instance }: { instance: ClusterInstance }) {
  const dispatch = useAppDispatch();
  const button = (
    <Button size="sm" variant="outline" disabled={!idle(instance) || instance.members >= memberLimit} onClick={() => dispatch(memberAddRequested({ instance }))}>
      Add member
    </Button>
  );
  return instance.type === 'pg' ? (
    button
  ) : (
    <HStack gap="2" role="group" aria-label="Cluster operations">
      {button}
    </HStack>
  );
}

/** Only the last member is removed: members keep their numbers and ports. */
function removeColumn(instance: ClusterInstance): Column<InstanceMember> {
  return {
    key: 'actions',
    header: 'Actions',
    hiddenHeader: true,
    cell: (m) =>
      m.ordinal === instance.members && (
        <HStack justify="end">
          <RemoveMember instance={instance} ordinal={m.ordinal} />
        </HStack>
      ),
  };
}

function RemoveMember({ instance, ordinal }: { instance: ClusterInstance; ordinal: number }) {
  const dispatch = useAppDispatch();
  return (
    <Button
      size="xs"
      variant="outline"
      colorPalette="red"
      aria-label={`Remove member ${ordinal}`}
      disabled={!idle(instance)}
      onClick={() => dispatch(memberRemoveRequested({ instance, ordinal }))}
    >
      Remove
    </Button>
  );
}
