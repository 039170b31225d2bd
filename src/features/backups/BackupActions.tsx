import { Button, HStack } from '@chakra-ui/react';
import type { Backup } from '../../../contracts/backups';
import { useAppDispatch } from '../../app/hooks';
import { formatDateTime } from '../../components/DateTime';
import { isBackupActive } from './backupLabels';
import { backupDeletionRequested } from './backupsSaga';
import { useBackupDownloadUrlMutation, useVerifyBackupMutation } from './backupsApi';
import { startDownload } from './startDownload';

interface BackupActionsProps {
  backup: Backup;
  /** Database backups only: opens the form that restores this one into a new instance. */
  onRestore?: (backup: Backup) => void;
}

/** What can be done with one backup of the list; the group's name says which backup. */
export function BackupActions({ backup, onRestore }: BackupActionsProps) {
  const dispatch = useAppDispatch();
  const [getDownloadUrl, gettingUrl] = useBackupDownloadUrlMutation();
  const [verify] = useVerifyBackupMutation();
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
    </HStack>
  );
}
