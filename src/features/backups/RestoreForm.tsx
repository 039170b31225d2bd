import { Text } from '@chakra-ui/react';
import { useNavigate } from 'react-router-dom';
import type { Backup } from '../../../contracts/backups';
import { routePath } from '../../../contracts/routes';
import { formatDateTime } from '../../components/DateTime';
import { NewInstanceNameForm } from '../instances/NewInstanceNameForm';
import { useRestoreBackupMutation } from './backupsApi';

/**
 * Restores a database backup into a new instance, named here with the rules checked as it is
 * typed; the new instance's page follows, where it is seen being created.
 */
export function RestoreForm({ backup, onDone }: { backup: Backup; onDone: () => void }) {
  const navigate = useNavigate();
  const [restore, { isLoading, error, originalArgs }] = useRestoreBackupMutation();

  const submit = async (name: string) => {
    const { data } = await restore({ instanceId: backup.instanceId, backupId: backup.id, name });
    if (!data) return;
    onDone();
    navigate(routePath('singleInstance', { id: data.id }));
  };

  return (
    <NewInstanceNameForm
      intro={
        <Text>
          The backup of {backup.instanceName} taken {formatDateTime(backup.startedAt)} becomes a new instance. {backup.instanceName}{' '}
          itself is not changed.
        </Text>
      }
      submitLabel="Restore"
      busy={isLoading}
      error={error}
      sentName={originalArgs?.name}
      otherFields={['backupId']}
      onSubmit={(name) => void submit(name)}
    />
  );
}
