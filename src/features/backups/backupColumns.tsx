import { Badge, Code, HStack, Spinner, Stack, Text } from '@chakra-ui/react';
import type { Backup } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import { routePath } from '../../../contracts/routes';
import { CopyButton } from '../../components/CopyButton';
import type { Column } from '../../components/DataTable';
import { DateTime, formatDateTime } from '../../components/DateTime';
import { TextLink } from '../../components/TextLink';
import { formatDuration, isBackupActive, kindLabels, statusLooks, triggerLabels } from './backupLabels';

/** A backup's status; why it failed shows on hover, how far it got while it runs. */
export function BackupStatusBadge({ backup }: { backup: Backup }) {
  const look = statusLooks[backup.status];
  const percent = isBackupActive(backup.status) ? backup.progress?.percent : null;
  return (
    <HStack gap="2">
      <Badge colorPalette={look.palette} variant="subtle" title={backup.error ?? undefined}>
        {look.label}
      </Badge>
      {percent !== null && percent !== undefined && (
        <Text as="span" fontSize="xs" color="fg.muted">
          {Math.round(percent)}%
        </Text>
      )}
    </HStack>
  );
}

/** The start of a SHA-256, the whole of it on hover and to copy. */
export function Checksum({ sha256 }: { sha256: string | null }) {
  if (!sha256) return <>—</>;
  const short = sha256.slice(0, 12);
  return (
    <HStack gap="1">
      <Code title={sha256}>{short}…</Code>
      <CopyButton text={sha256} label="Copy" size="2xs" variant="ghost" aria-label={`Copy checksum ${short}`} />
    </HStack>
  );
}

/** The last verification of a backup against its checksum and recorded contents, or the one under way. */
export function VerificationResult({ backup }: { backup: Backup }) {
  if (backup.verifying) {
    return (
      <HStack role="status" gap="2" color="fg.muted" fontSize="sm">
        <Spinner size="xs" />
        <Text as="span">Verifying…</Text>
      </HStack>
    );
  }
  const { verification } = backup;
  if (!verification) return <Text color="fg.muted">Not verified</Text>;
  return (
    <Stack gap="0.5" align="flex-start">
      <Badge colorPalette={verification.ok ? 'green' : 'red'} variant="subtle" title={`Verified ${formatDateTime(verification.at)}`}>
        {verification.ok ? 'Verified' : 'Does not match'}
      </Badge>
      {/* One line, the whole of it on hover: a long result must not push the row's buttons away. */}
      {verification.detail && (
        <Text fontSize="xs" color={verification.ok ? 'fg.muted' : 'fg.error'} maxW="48" truncate title={verification.detail}>
          {verification.detail}
        </Text>
      )}
    </Stack>
  );
}

/** The columns both backup lists draw from. */
export const backupColumns = {
  instance: {
    key: 'instance',
    header: 'Instance',
    sortBy: 'instanceName',
    cell: (backup) =>
      backup.instanceExists ? (
        <TextLink to={routePath('singleInstance', { id: backup.instanceId })}>{backup.instanceName}</TextLink>
      ) : (
        <Text as="span" title="The instance was deleted; its backups are kept.">
          {backup.instanceName} (deleted)
        </Text>
      ),
  },
  kind: { key: 'kind', header: 'Kind', cell: (backup) => kindLabels[backup.kind] },
  status: { key: 'status', header: 'Status', sortBy: 'status', cell: (backup) => <BackupStatusBadge backup={backup} /> },
  started: { key: 'started', header: 'Started', sortBy: 'startedAt', cell: (backup) => <DateTime value={backup.startedAt} /> },
  duration: { key: 'duration', header: 'Duration', numeric: true, cell: (backup) => formatDuration(backup.durationMs) },
  size: { key: 'size', header: 'Size', sortBy: 'sizeBytes', numeric: true, cell: (backup) => formatBytes(backup.sizeBytes) },
  trigger: { key: 'trigger', header: 'Trigger', cell: (backup) => triggerLabels[backup.trigger] },
  checksum: { key: 'checksum', header: 'Checksum', cell: (backup) => <Checksum sha256={backup.sha256} /> },
  verification: { key: 'verification', header: 'Verification', cell: (backup) => <VerificationResult backup={backup} /> },
} satisfies Record<string, Column<Backup>>;
