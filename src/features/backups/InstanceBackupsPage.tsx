import { Button, HStack, Stack } from '@chakra-ui/react';
import { useState, type ReactNode } from 'react';
import { useParams } from 'react-router-dom';
import type { Backup } from '../../../contracts/backups';
import { formatBytes, type BackupKind } from '../../../contracts/backupValues';
import { routePath, routes } from '../../../contracts/routes';
import { errorStatus } from '../../api/problemText';
import type { Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Facts } from '../../components/Facts';
import { FormDialog } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { PagedTable } from '../../components/PagedTable';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { useInstanceQuery } from '../instances/instancesApi';
import { useHubGroup } from '../realtime/useHubGroup';
import { BackupActions } from './BackupActions';
import { backupColumns } from './backupColumns';
import { BackupFilters, rangeArgs } from './BackupFilters';
import { summaryKey, useBackupsSummaryQuery, useInstanceBackupsQuery, useTakeBackupMutation } from './backupsApi';
import { RestoreForm } from './RestoreForm';
import { RunningBackup } from './RunningBackup';
import { ScheduleSection } from './ScheduleSection';

const filters = ['status', 'trigger', 'from', 'to'] as const;

const texts: Record<BackupKind, { title: string; description: (name: string) => string; empty: string }> = {
  database: {
    title: 'Database backups',
    description: (name) => `Dumps and snapshots of the data of ${name}, to download or to restore into a new instance.`,
    empty: 'No database backups yet.',
  },
  file: {
    title: 'File backups',
    description: (name) => `Copies of the configuration files and server logs of ${name}, with its data directory when it was stopped.`,
    empty: 'No file backups yet.',
  },
};

const { status, started, duration, size, trigger, checksum, verification } = backupColumns;

/**
 * The database or file backups of one instance: figures, the backup being taken, the sections of
 * the kind's own (`children`), the list, and (database) the schedule.
 */
export function InstanceBackupsPage({ kind, children }: { kind: BackupKind; children?: ReactNode }) {
  const { id = '' } = useParams();
  // Live: progress, outcomes, verifications and deletions of this instance's backups.
  useHubGroup('Backups', id);
  const text = texts[kind];
  const instance = useInstanceQuery(id);
  const summary = useBackupsSummaryQuery(id);
  const list = useListParams({ filters });
  const backups = useInstanceBackupsQuery({ ...list.args, ...rangeArgs(list.filters), instanceId: id, kind });
  const [takeBackup, taking] = useTakeBackupMutation();
  const [restoring, setRestoring] = useState<Backup | null>(null);

  // Admins still reach the kept backups of a deleted instance; others get 404 for both.
  const deleted = errorStatus(instance.error) === 404;
  if (deleted && errorStatus(summary.error) === 404) {
    return (
      <>
        <PageHeader title={text.title} />
        <EmptyState
          title="No such instance"
          description="There is no instance with this id, or you cannot see it."
        >
          <TextLink to={routes.backups.path}>All backups</TextLink>
        </EmptyState>
      </>
    );
  }

  const name = instance.data?.name ?? backups.data?.items[0]?.instanceName ?? 'the instance';
  const figures = summary.data?.[summaryKey[kind]];
  const running = figures?.running ?? null;
  const columns: Column<Backup>[] = [
    status,
    started,
    duration,
    size,
    trigger,
    checksum,
    verification,
    {
      key: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      cell: (backup) => <BackupActions backup={backup} onRestore={kind === 'database' ? setRestoring : undefined} />,
    },
  ];
  const filtered = filters.some((filter) => list.filters[filter]);

  return (
    <>
      <PageHeader
        title={text.title}
        description={text.description(name)}
        actions={
          <HStack gap="4" align="center">
            {instance.data && <TextLink to={routePath('singleInstance', { id })}>Back to {instance.data.name}</TextLink>}
            {!deleted && (
              <Button disabled={running !== null} loading={taking.isLoading} onClick={() => void takeBackup({ instanceId: id, kind })}>
                Take backup
              </Button>
            )}
          </HStack>
        }
      />
      <Stack gap="6">
        {deleted && <Notice status="warning" title="This instance was deleted; its backups are kept." />}
        <Section title="Summary">
          {figures ? (
            <Facts
              items={[
                ['Backups', figures.failed > 0 ? `${figures.count} (${figures.failed} failed)` : String(figures.count)],
                ['Total size', formatBytes(figures.totalBytes)],
                ['Last success', <DateTime value={figures.lastSucceededAt} fallback="Never" />],
              ]}
            />
          ) : summary.isLoading ? (
            <LoadingState label="Loading the figures…" />
          ) : (
            <ErrorState title="Could not load the figures." onRetry={summary.refetch} />
          )}
          {running && <RunningBackup backup={running} />}
        </Section>

        {children}

        <Stack gap="4" as="section" aria-label={text.title}>
          <HStack gap="4" align="end" wrap="wrap">
            <BackupFilters fields={filters} values={list.filters} onChange={list.setFilter} />
          </HStack>
          <PagedTable
            label={text.title}
            columns={columns}
            rowKey={(backup) => backup.id}
            emptyText={filtered ? 'No backups match.' : text.empty}
            query={backups}
            list={list}
          />
        </Stack>

        {kind === 'database' && !deleted && <ScheduleSection instanceId={id} physical={instance.data?.type === 'pg'} />}
      </Stack>

      <FormDialog title="Restore to a new instance" open={restoring !== null} onOpenChange={(open) => !open && setRestoring(null)}>
        {restoring && <RestoreForm backup={restoring} onDone={() => setRestoring(null)} />}
      </FormDialog>
    </>
  );
}
