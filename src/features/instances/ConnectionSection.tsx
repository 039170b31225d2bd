import { Button, Code, HStack, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { Instance } from '../../../contracts/instances';
import { hasRole } from '../../../contracts/roles';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { CopyButton } from '../../components/CopyButton';
import { Facts } from '../../components/Facts';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { selectCurrentUser } from '../auth/selectors';
import { rotatedSecretKey, superuserSecretKey, useRevealSuperuserPasswordMutation, useRotateOwnerPasswordMutation } from './databasesApi';
import { ownerRotationRequested, superuserRevealRequested } from './databasesSaga';
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

/** A revealed password, to copy now: it is not shown again without asking (and being recorded) again. */
function Secret({ title, label, password, danger, onHide }: { title: string; label: string; password: string; danger?: boolean; onHide: () => void }) {
  return (
    <Notice status={danger ? 'error' : 'warning'} title={title}>
      <Stack gap="2" pt="1">
        <HStack gap="3" wrap="wrap">
          <Code aria-label={label}>{password}</Code>
          <CopyButton size="xs" text={password} label="Copy" aria-label={`Copy ${label.toLowerCase()}`} />
          <Button size="xs" variant="ghost" onClick={onHide}>
            Hide
          </Button>
        </HStack>
        <Text>Shown this once: copy it now. Revealing it again is recorded again.</Text>
      </Stack>
    </Notice>
  );
}

/**
 * How to reach the instance, as its owner (pg's owner role, etcd's owner user): any member of the
 * instance's group reveals and rotates the owner's password (audited). For PostgreSQL an admin may
 * also reveal the superuser's, after a warning (audited as dangerous); etcd's root is Warden's alone.
 */
export function ConnectionSection({ instance }: { instance: Pick<Instance, 'id' | 'name' | 'type' | 'status'> }) {
  const dispatch = useAppDispatch();
  const isPg = instance.type === 'pg';
  const ownerName = isPg ? 'owner role' : 'owner user';
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const connection = useConnectionQuery(instance.id);
  const [reveal, secret] = useRevealPasswordMutation();
  // Asked for by the saga after its confirmation; read here by the same cache key.
  const [, rotated] = useRotateOwnerPasswordMutation({ fixedCacheKey: rotatedSecretKey(instance.id) });
  const [, superuser] = useRevealSuperuserPasswordMutation({ fixedCacheKey: superuserSecretKey(instance.id) });
  const owner = rotated.data ?? secret.data;
  const hideOwner = () => {
    secret.reset();
    rotated.reset();
  };

  let body;
  if (connection.isLoading) body = <LoadingState label="Loading the connection details…" />;
  else if (!connection.data) body = <ErrorState title="Could not load the connection details." onRetry={connection.refetch} />;
  else {
    const { host, port, user, database, uri, command, endpoints, readWrite, readOnly, multiHostUri } = connection.data;
    // A PostgreSQL cluster: the proxy's two addresses follow the leader and the standbys through a
    // failover; the multi-host URI lets a libpq client find the leader itself.
    const pgCluster: [string, ReactNode][] = readWrite
      ? [
          ['Read-write address', <Copyable value={readWrite} what="read-write address" />],
          ['Read-only address', <Copyable value={readOnly ?? null} what="read-only address" />],
          ['Multi-host URI', <Copyable value={multiHostUri ?? null} what="multi-host URI" />],
        ]
      : [];
    const [membersLabel, membersWhat] = readWrite ? ['Members', 'member addresses'] : ['Endpoints', 'endpoints'];
    body = (
      <Facts
        items={[
          ['Host', <Copyable value={host} what="host" />],
          ['Port', <Copyable value={port} what="port" />],
          ...pgCluster,
          // A cluster: clients given every member carry on through the loss of any one.
          ...(endpoints.length > 1 ? [[membersLabel, <Copyable value={endpoints.join(',')} what={membersWhat} />] as [string, ReactNode]] : []),
          ['User', <Copyable value={user} what="user" />],
          ['Database', <Copyable value={database} what="database" />],
          ['Connection URI', <Copyable value={uri} what="connection URI" />],
          ['Command', <Copyable value={command} what="command" />],
        ]}
      />
    );
  }

  return (
    <Section
      title="Connection"
      description={`Connect as the ${ownerName}. Neither the connection string nor the command carries the password: the command asks for it.`}
      actions={
        <HStack gap="2" wrap="wrap">
          {!owner && (
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
          )}
          <Button
            size="sm"
            variant="outline"
            loading={rotated.isLoading}
            disabled={instance.status !== 'running'}
            onClick={() => dispatch(ownerRotationRequested({ instance }))}
          >
            Rotate password
          </Button>
          {isPg && isAdmin && !superuser.data && (
            <Button
              size="sm"
              colorPalette="red"
              variant="outline"
              loading={superuser.isLoading}
              disabled={instance.status === 'unInitialized'}
              onClick={() => dispatch(superuserRevealRequested({ instance }))}
            >
              Reveal superuser password
            </Button>
          )}
        </HStack>
      }
    >
      {body}
      {owner && <Secret title={`Password of the ${ownerName}`} label="Password" password={owner.password} onHide={hideOwner} />}
      {superuser.data && (
        <Secret title="Superuser password: for the control plane, not for applications" label="Superuser password" password={superuser.data.password} danger onHide={superuser.reset} />
      )}
    </Section>
  );
}
