import { Button, Code, HStack, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { Instance } from '../../../contracts/instances';
import { hasRole } from '../../../contracts/roles';
import { useAppSelector } from '../../app/hooks';
import { CopyButton } from '../../components/CopyButton';
import { Facts } from '../../components/Facts';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { selectCurrentUser } from '../auth/selectors';
import { useConnectionQuery, useRevealPasswordMutation } from './instancesApi';

function Copyable({ value, what }: { value: string | number | null; what: string }): ReactNode {
  if (value === null) return '—';
  return (
    <HStack gap="3" wrap="wrap">
      <Code wordBreak="break-all">{value}</Code>
      <CopyButton size="xs" text={String(value)} label="Copy" aria-label={`Copy ${what}`} />
    </HStack>
  );
}

/**
 * How to reach the instance. An admin may also reveal a PostgreSQL superuser's password, once per
 * asking (audited); etcd listens on loopback without one.
 */
export function ConnectionSection({ instance }: { instance: Pick<Instance, 'id' | 'type' | 'status'> }) {
  const mayReveal = hasRole(useAppSelector(selectCurrentUser), 'admin') && instance.type === 'pg';
  const connection = useConnectionQuery(instance.id);
  const [reveal, secret] = useRevealPasswordMutation();

  let body;
  if (connection.isLoading) body = <LoadingState label="Loading the connection details…" />;
  else if (!connection.data) body = <ErrorState title="Could not load the connection details." onRetry={connection.refetch} />;
  else {
    const { host, port, user, database, uri } = connection.data;
    body = (
      <Facts
        items={[
          ['Host', <Copyable value={host} what="host" />],
          ['Port', <Copyable value={port} what="port" />],
          ['User', <Copyable value={user} what="user" />],
          ['Database', <Copyable value={database} what="database" />],
          ['Connection URI', <Copyable value={uri} what="connection URI" />],
        ]}
      />
    );
  }

  return (
    <Section
      title="Connection"
      description="The connection string carries no password."
      actions={
        mayReveal &&
        !secret.data && (
          <Button
            size="sm"
            variant="outline"
            loading={secret.isLoading}
            // Not initialized: no password exists yet.
            disabled={instance.status === 'unInitialized'}
            onClick={() => reveal(instance.id)}
          >
            Reveal password
          </Button>
        )
      }
    >
      {body}
      {secret.data && (
        <Notice status="warning" title="Password">
          <Stack gap="2" pt="1">
            <HStack gap="3" wrap="wrap">
              <Code aria-label="Password">{secret.data.password}</Code>
              <CopyButton size="xs" text={secret.data.password} label="Copy" aria-label="Copy password" />
              <Button size="xs" variant="ghost" onClick={secret.reset}>
                Hide
              </Button>
            </HStack>
            <Text>Shown this once: copy it now. Revealing it again is recorded again.</Text>
          </Stack>
        </Notice>
      )}
    </Section>
  );
}
