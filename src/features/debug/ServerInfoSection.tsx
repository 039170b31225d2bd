import { Badge, Button, HStack, Stack, Table, Text } from '@chakra-ui/react';
import type { ServerInfo } from '../../../contracts/debug';
import { Facts } from '../../components/Facts';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { TableFrame } from '../ui/TableFrame';
import { useDebugInfoQuery, usePingMutation } from './debugApi';

const engineNames: Record<ServerInfo['engines'][number]['type'], string> = { pg: 'PostgreSQL', etcd: 'etcd' };

/** "3 d 4 h 5 min", "2 h 0 min 7 s", "42 s": the largest units, at most three. */
export function formatUptime(totalSeconds: number): string {
  const units: [string, number][] = [
    ['d', Math.floor(totalSeconds / 86_400)],
    ['h', Math.floor(totalSeconds / 3_600) % 24],
    ['min', Math.floor(totalSeconds / 60) % 60],
    ['s', Math.floor(totalSeconds) % 60],
  ];
  const first = units.findIndex(([, value]) => value > 0);
  if (first === -1) return '0 s';
  return units
    .slice(first, first + 3)
    .map(([unit, value]) => `${value} ${unit}`)
    .join(' ');
}

/** The server's facts (POST /debug info), a refresh, and a ping with its round trip. */
export function ServerInfoSection() {
  // Uptime and connection counts move: always ask again when the page opens.
  const info = useDebugInfoQuery(undefined, { refetchOnMountOrArgChange: true });
  const [ping, pinged] = usePingMutation();

  return (
    <Section
      title="Server"
      actions={
        <HStack gap="2">
          <Button size="sm" variant="outline" onClick={() => info.refetch()} loading={info.isFetching}>
            Refresh
          </Button>
          <Button size="sm" variant="outline" onClick={() => ping()} loading={pinged.isLoading}>
            Ping
          </Button>
        </HStack>
      }
    >
      {info.isLoading ? (
        <LoadingState label="Loading server facts…" />
      ) : info.data ? (
        <ServerFacts info={info.data} />
      ) : (
        <ErrorState title="Could not load server facts." onRetry={() => info.refetch()} />
      )}
      {/* Always rendered, so screen readers hear the answer when it arrives. */}
      <Text role="status" aria-live="polite" aria-label="Ping result" color="fg.muted">
        {pinged.data && `Round trip ${pinged.data.roundTripMs} ms (server time ${pinged.data.serverTime})`}
      </Text>
    </Section>
  );
}

function ServerFacts({ info }: { info: ServerInfo }) {
  return (
    <Stack gap="4">
      <Facts
        items={[
          ['Version', info.version],
          ['Uptime', formatUptime(info.uptimeSeconds)],
          ['Node', info.node],
          ['Store', info.store],
          ['Hub connections', info.hubConnections],
          ['Engine confinement', info.confinement.active ? 'bubblewrap: own namespaces, read-only host, limits' : `Off. ${info.confinement.reason}`],
          [
            'Point-in-time recovery',
            info.pointInTimeRecovery.active
              ? `pgBackRest, ${info.pointInTimeRecovery.repository === 's3' ? 'S3 bucket' : 'local folder'} ${info.pointInTimeRecovery.location}`
              : `Off. ${info.pointInTimeRecovery.reason}`,
          ],
        ]}
      />
      <TableFrame>
        <Table.Root size="sm" aria-label="Engines">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>Engine</Table.ColumnHeader>
              <Table.ColumnHeader>Status</Table.ColumnHeader>
              <Table.ColumnHeader>Version or problem</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {info.engines.map((engine) => (
              <Table.Row key={engine.type}>
                <Table.Cell>{engineNames[engine.type]}</Table.Cell>
                <Table.Cell>
                  <Badge colorPalette={engine.available ? 'green' : 'red'}>{engine.available ? 'Available' : 'Missing'}</Badge>
                </Table.Cell>
                <Table.Cell>{engine.available ? engine.version : engine.problem}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </TableFrame>
    </Stack>
  );
}
