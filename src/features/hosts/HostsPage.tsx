import { Badge, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { formatBytes } from '../../../contracts/backupValues';
import { hostLostAfterBeats, type Host } from '../../../contracts/hosts';
import { useAppDispatch } from '../../app/hooks';
import { DataTable, type Column } from '../../components/DataTable';
import { formatDateTime } from '../../components/DateTime';
import { PageHeader } from '../../components/PageHeader';
import { formatDuration } from '../backups/backupLabels';
import { formatAgo } from '../pitr/targetTime';
import { useNow } from '../pitr/useNow';
import { hostsApi, useGetHostsQuery } from './hostsApi';
import { drainingChangeRequested } from './hostsSaga';

const columns: Column<Host>[] = [
  {
    key: 'name',
    header: 'Name',
    cell: (host) => (
      <Stack gap="0">
        <Text>{host.name}</Text>
        <Text fontSize="xs" color="fg.muted">
          {host.address}
        </Text>
      </Stack>
    ),
  },
  { key: 'state', header: 'State', cell: (host) => <HostState host={host} /> },
  { key: 'instances', header: 'Instances', numeric: true, cell: (host) => host.instanceCount },
  { key: 'cores', header: 'Cores', numeric: true, cell: (host) => host.cores },
  { key: 'memory', header: 'Memory', numeric: true, cell: (host) => formatBytes(host.memoryBytes) },
  { key: 'diskFree', header: 'Disk free', numeric: true, cell: (host) => formatBytes(host.diskFreeBytes) },
  { key: 'ports', header: 'Ports', cell: (host) => `${host.freePorts} free of ${host.ports.from}–${host.ports.to}` },
  { key: 'agentVersion', header: 'Agent version', cell: (host) => host.agentVersion },
  { key: 'lastHeartbeat', header: 'Last heartbeat', cell: (host) => <Ago at={host.lastHeartbeatAt} /> },
  { key: 'actions', header: 'Actions', hiddenHeader: true, cell: (host) => <DrainButton host={host} /> },
];

/**
 * The machines that run instances (admins only): whether each is online, what it has free, and
 * draining one so that no new instance is placed on it.
 */
export function HostsPage() {
  // Heartbeats move the figures (free disk and ports, instance count, last heartbeat) without a hub
  // event, which comes only when a host registers, is lost, returns or is drained: the list is read
  // again at the heartbeat's pace.
  const heartbeatMs = hostsApi.endpoints.getHosts.useQueryState().data?.heartbeatMs;
  const hosts = useGetHostsQuery(undefined, { pollingInterval: heartbeatMs ?? 0 });
  const pace = heartbeatMs ? ` (one every ${formatDuration(heartbeatMs)})` : '';

  return (
    <>
      <PageHeader
        title="Hosts"
        description={`The machines that run instances, each through its agent. A host is lost once it misses ${hostLostAfterBeats} heartbeats${pace}.`}
      />
      <DataTable
        label="Hosts"
        columns={columns}
        rows={hosts.data?.items}
        rowKey={(host) => host.id}
        loading={hosts.isLoading}
        fetching={hosts.isFetching}
        failed={hosts.isError}
        onRetry={() => void hosts.refetch()}
        emptyText="No host has registered yet: a host shows here once its agent starts."
      />
    </>
  );
}

/** Online or lost, and whether it is drained of new instances. */
function HostState({ host }: { host: Host }) {
  return (
    <HStack gap="1" wrap="wrap">
      <Badge colorPalette={host.state === 'online' ? 'green' : 'red'} variant="subtle">
        {host.state === 'online' ? 'Online' : 'Lost'}
      </Badge>
      {host.draining && (
        <Badge colorPalette="orange" variant="subtle">
          Draining
        </Badge>
      )}
    </HStack>
  );
}

/** How long ago, aging on screen; the moment itself on hover. */
function Ago({ at }: { at: string }) {
  const now = useNow();
  return (
    <time dateTime={at} title={formatDateTime(at, { seconds: true })}>
      {formatAgo(now - Date.parse(at))}
    </time>
  );
}

/** Drain asks first (the saga); putting a host back in service does not. */
function DrainButton({ host }: { host: Host }) {
  const dispatch = useAppDispatch();
  const action = host.draining ? 'Stop draining' : 'Drain';
  return (
    <Button
      size="xs"
      variant="outline"
      aria-label={`${action} host ${host.name}`}
      onClick={() => dispatch(drainingChangeRequested({ host, draining: !host.draining }))}
    >
      {action}
    </Button>
  );
}
