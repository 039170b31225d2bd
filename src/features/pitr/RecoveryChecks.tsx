import { Button, HStack, Spinner, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { RecoveryCheck, RecoveryWindow } from '../../../contracts/pitr';
import { formatDateTime } from '../../components/DateTime';
import { formatDuration } from '../backups/backupLabels';
import { useCheckRecoveryWindowMutation } from './pitrApi';

const when = (check: RecoveryCheck) => <time dateTime={check.at}>{formatDateTime(check.at)}</time>;

/** A failed check in words as well as in red, with the server's account of what went wrong. */
function Failed({ children }: { children: ReactNode }) {
  return (
    <HStack align="start" gap="1.5" color="fg.error">
      <Text as="span" aria-hidden="true" fontWeight="bold">
        ✕
      </Text>
      <Text>{children}</Text>
    </HStack>
  );
}

function LastDrill({ drill }: { drill: RecoveryCheck | null }) {
  if (!drill) return <Text>No drill yet: one runs every week, the first an hour after the first full backup.</Text>;
  if (!drill.ok) {
    return (
      <Failed>
        Last restore drill failed, {when(drill)}: {drill.detail}
      </Failed>
    );
  }
  const took = drill.recoverySeconds === null ? '' : `took ${formatDuration(Math.round(drill.recoverySeconds * 1000))}, `;
  const target = drill.targetTime ? formatDateTime(drill.targetTime, { seconds: true }) : 'the latest moment';
  return (
    <Text>
      Last restore drill: {took}
      {when(drill)} — restored to {target}
      {drill.backupId && ` from backup ${drill.backupId}`}
    </Text>
  );
}

function LastVerify({ verify }: { verify: RecoveryCheck | null }) {
  if (!verify) return <Text>Repository not verified yet.</Text>;
  if (!verify.ok) {
    return (
      <Failed>
        Repository verification failed, {when(verify)}: {verify.detail}
      </Failed>
    );
  }
  return <Text>Repository verified {when(verify)}</Text>;
}

/**
 * What proves the window can be restored: the last restore drill (a restore to a random moment into
 * a throwaway copy, started and asked a query) and the last verification of the repository, each
 * run on demand too. The server runs one at a time; its result arrives with the window.
 */
export function RecoveryChecks({ instanceId, window }: { instanceId: string; window: RecoveryWindow }) {
  const [check, asked] = useCheckRecoveryWindowMutation();
  const askedKind = asked.isLoading ? asked.originalArgs?.kind : undefined;
  // Either needs a physical backup: the server refuses without one.
  const disabled = window.checking || window.backups.length === 0;

  return (
    <Stack direction={{ base: 'column', md: 'row' }} justify="space-between" align={{ md: 'end' }} gap="3">
      <Stack gap="1" aria-live="polite">
        <LastDrill drill={window.lastDrill} />
        <LastVerify verify={window.lastVerify} />
        {window.checking && (
          <HStack gap="2" color="fg.muted">
            <Spinner size="xs" />
            <Text>A drill or verification runs…</Text>
          </HStack>
        )}
      </Stack>
      <HStack gap="2" wrap="wrap" alignSelf={{ base: 'start', md: 'end' }}>
        <Button size="sm" variant="outline" disabled={disabled} loading={askedKind === 'drill'} onClick={() => void check({ instanceId, kind: 'drill' })}>
          Run restore drill
        </Button>
        <Button size="sm" variant="outline" disabled={disabled} loading={askedKind === 'verify'} onClick={() => void check({ instanceId, kind: 'verify' })}>
          Verify repository
        </Button>
      </HStack>
    </Stack>
  );
}
