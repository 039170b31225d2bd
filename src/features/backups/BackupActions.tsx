import { Button, HStack } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router-dom';
import type { Backup } from '../../../contracts/backups';
import { routePath } from '../../../contracts/routes';
import { useAppDispatch } from '../../app/hooks';
import { formatDateTime } from '../../components/DateTime';
import { isBackupActive } from './backupLabels';
import { backupDeletionRequested } from './backupsSaga';
import { useBackupDownloadUrlMutation, usePinBackupMutation, useVerifyBackupMutation } from './backupsApi';
import { startDownload } from './startDownload';

interface BackupActionsProps {
  backup: Backup;
  /** Database backups only: opens the form that restores this one into a new instance. */
  onRestore?: (backup: Backup) => void;
  /** In a list of many instances' backups: a link to the backup's instance, while it exists. */
  withInstanceLink?: boolean;
}

/** What can be done with one backup of the list; the group's name says which backup. */
export function BackupActions({ backup, onRestore, withInstanceLink = false }: BackupActionsProps) {
  const dispatch = useAppDispatch();
  const [getDownloadUrl, gettingUrl] = useBackupDownloadUrlMutation();
  const [verify] = useVerifyBackupMutation();
  const [pin, pinning] = usePinBackupMutation();
  const { id, instanceId, kind, status, verifying } = backup;
  const stored = status === 'succeeded';

  const download = async () => {
    const { data } = await getDownloadUrl({ id, instanceId, kind });
    if (data) startDownload(data.url);
  };

  return (
    <HStack gap="1" wrap="wrap" role="group" aria-label={`Actions for the backup of ${formatDateTime(backup.startedAt)}`}>
      <Button size="xs" variant="outline" disabled={!stored} loading={gettingUrl.isLoading} onClick={download}>
        Download
      </Button>
      <Button
        size="xs"
        variant="outline"
        // A corrupt backup may be checked again, say after the storage was repaired.
        disabled={!(stored || status === 'corrupt') || verifying}
        onClick={() => verify({ id, instanceId, kind })}
      >
        Verify
      </Button>
      {/* A toggle: pressed while retention may never delete this backup. */}
      <Button
        size="xs"
        variant="outline"
        aria-pressed={backup.pinned}
        loading={pinning.isLoading}
        onClick={() => pin({ id, instanceId, kind, pinned: !backup.pinned })}
      >
        {backup.pinned ? 'Pinned' : 'Pin'}
      </Button>
      {onRestore && (
        <Button size="xs" variant="outline" disabled={!stored || !backup.instanceExists} onClick={() => onRestore(backup)}>
          Restore
        </Button>
      )}
      <Button
        size="xs"
        variant="outline"
        colorPalette="red"
        disabled={isBackupActive(status)}
        onClick={() => dispatch(backupDeletionRequested({ backup }))}
      >
        Delete
      </Button>
      {withInstanceLink && backup.instanceExists && (
        <Button asChild size="xs" variant="outline">
          <RouterLink to={routePath('singleInstance', { id: instanceId })}>Open instance</RouterLink>
        </Button>
      )}
    </HStack>
  );
}
