import { Button, HStack, Stack } from '@chakra-ui/react';
import { useState } from 'react';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryWindow } from '../../../contracts/pitr';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { FormDialog } from '../../components/FormDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { useBackupsSummaryQuery, useTakeBackupMutation } from '../backups/backupsApi';
import { formatDuration } from '../backups/backupLabels';
import { useInstanceQuery } from '../instances/instancesApi';
import { useHubGroup } from '../realtime/useHubGroup';
import { PitrSettingsForm } from './PitrSettingsForm';
import { useRecoveryWindowQuery } from './pitrApi';
import { RecoveryChecks } from './RecoveryChecks';
import { RecoveryTimeline } from './RecoveryTimeline';
import { RestorePointForm } from './RestorePointForm';
import { RestoreToPointForm } from './RestoreToPointForm';
import { TakePhysicalBackup } from './TakePhysicalBackup';

const title = 'Point-in-time recovery';
const repositories: Record<RecoveryWindow['repository'], string> = { local: "This server's disk", s3: 'An S3-compatible bucket' };

type Dialog = 'restore' | 'restorePoint' | 'settings';

/** The recoverable window of a pg instance on its database backups page; nothing for etcd. */
export function PointInTimeSection({ instanceId }: { instanceId: string }) {
  const instance = useInstanceQuery(instanceId);
  return instance.data?.type === 'pg' ? <RecoveryWindowSection instance={instance.data} /> : null;
}

function RecoveryWindowSection({ instance }: { instance: Instance }) {
  // The server announces RecoveryWindowChanged (WAL archived, a backup or drill ended) to the instance's group, not the backups'.
  useHubGroup('Instance', instance.id);
  const recovery = useRecoveryWindowQuery(instance.id);
  const running = !!useBackupsSummaryQuery(instance.id).data?.database.running;
  const [takeBackup, taking] = useTakeBackupMutation();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = () => setDialog(null);
  const window = recovery.data;

  if (!window) {
    return (
      <Section title={title}>
        {recovery.isLoading ? (
          <LoadingState label="Loading the recoverable window…" />
        ) : (
          <ErrorState title="Could not load the recoverable window." onRetry={recovery.refetch} />
        )}
      </Section>
    );
  }
  if (!window.enabled) {
    return (
      <Section title={title}>
        <EmptyState title="WAL archiving is off for this instance." description={window.reason ?? undefined} />
      </Section>
    );
  }

  const { earliest, latest } = window;
  const actions = (
    <HStack gap="2" wrap="wrap">
      <TakePhysicalBackup instanceId={instance.id} hasFull={window.backups.some((backup) => backup.kind === 'full')} running={running} />
      <Button size="sm" variant="outline" onClick={() => setDialog('restorePoint')}>
        Mark restore point…
      </Button>
      <Button size="sm" disabled={!earliest || !latest} onClick={() => setDialog('restore')}>
        Restore to a point in time…
      </Button>
    </HStack>
  );

  return (
    <Section
      title={title}
      description={`Restore ${instance.name} as it was at any moment of the window below, into a new instance.`}
      actions={actions}
    >
      {earliest && latest ? (
        <RecoveryTimeline window={window} earliest={earliest} latest={latest} />
      ) : (
        <EmptyState title="No physical backup yet: the window starts with the first full backup.">
          <Button
            size="sm"
            disabled={running}
            loading={taking.isLoading}
            onClick={() => void takeBackup({ instanceId: instance.id, kind: 'database', physical: 'full' })}
          >
            Take a full backup
          </Button>
        </EmptyState>
      )}
      <RecoveryChecks instanceId={instance.id} window={window} />
      <Stack direction={{ base: 'column', md: 'row' }} justify="space-between" align={{ md: 'end' }} gap="3">
        <Facts
          items={[
            ['Repository', repositories[window.repository]],
            ['Archive timeout', formatDuration(window.archiveTimeoutSeconds * 1000)],
            ['Window kept', `${window.retentionDays} ${window.retentionDays === 1 ? 'day' : 'days'}`],
            [
              'Last archived',
              window.lastArchivedAt ? (
                <>
                  <DateTime value={window.lastArchivedAt} />
                  {window.lastArchivedWal && ` (${window.lastArchivedWal})`}
                </>
              ) : (
                'Nothing yet'
              ),
            ],
          ]}
        />
        <Button size="sm" variant="outline" alignSelf={{ base: 'start', md: 'end' }} onClick={() => setDialog('settings')}>
          Archive settings…
        </Button>
      </Stack>

      <FormDialog title="Restore to a point in time" open={dialog === 'restore'} onOpenChange={(open) => !open && close()}>
        <RestoreToPointForm instance={instance} onDone={close} />
      </FormDialog>
      <FormDialog title="Mark a restore point" open={dialog === 'restorePoint'} onOpenChange={(open) => !open && close()}>
        <RestorePointForm instanceId={instance.id} onDone={close} />
      </FormDialog>
      <FormDialog title="Archive settings" open={dialog === 'settings'} onOpenChange={(open) => !open && close()}>
        <PitrSettingsForm instanceId={instance.id} current={window} onDone={close} />
      </FormDialog>
    </Section>
  );
}
