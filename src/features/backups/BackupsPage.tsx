import { HStack, Stack, Switch, Text } from '@chakra-ui/react';
import type { AllBackupsPage, Backup } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { PageHeader } from '../../components/PageHeader';
import { SearchInput } from '../../components/SearchInput';
import { useListParams } from '../../components/useListParams';
import { useHubGroup } from '../realtime/useHubGroup';
import { BackupActions } from './BackupActions';
import { backupColumns } from './backupColumns';
import { BackupFilters, rangeArgs } from './BackupFilters';
import { useAllBackupsQuery } from './backupsApi';

const filterFields = ['status', 'kind', 'trigger', 'from', 'to'] as const;
const filters = [...filterFields, 'failuresFirst'] as const;

const { instance, kind, status, started, duration, size, trigger, checksum, verification } = backupColumns;
const columns: Column<Backup>[] = [
  instance,
  kind,
  status,
  started,
  duration,
  size,
  trigger,
  checksum,
  verification,
  { key: 'actions', header: 'Actions', hiddenHeader: true, cell: (backup) => <BackupActions backup={backup} withInstanceLink /> },
];

const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** What the filters match, not just this page: the server counts them. */
function Totals({ page }: { page: AllBackupsPage }) {
  return (
    <Text color="fg.muted" aria-live="polite">
      {countOf(page.total, 'backup')} · {formatBytes(page.totalBytes)} stored ·{' '}
      <Text as="span" color={page.failures > 0 ? 'fg.error' : undefined}>
        {countOf(page.failures, 'failure')}
      </Text>
    </Text>
  );
}

/** /backups: every backup the person may see, of every instance, including deleted ones. */
export function BackupsPage() {
  // Live: null joins the backups of every instance the person may see.
  useHubGroup('Backups', null);
  const list = useListParams({ filters });
  const backups = useAllBackupsQuery({ ...list.args, ...rangeArgs(list.filters) });
  const failuresFirst = list.filters.failuresFirst === 'true';
  const filtered = !!list.args.search || filterFields.some((filter) => list.filters[filter]);

  return (
    <>
      <PageHeader title="Backups" description="Backups of every instance you can reach, newest first." />
      <Stack gap="4">
        <HStack gap="4" align="end" wrap="wrap">
          <SearchInput label="Search by instance name" value={list.params.search ?? ''} onChange={list.setSearch} />
          <BackupFilters fields={filterFields} values={list.filters} onChange={list.setFilter} />
          <Switch.Root checked={failuresFirst} onCheckedChange={({ checked }) => list.setFilter('failuresFirst', checked ? 'true' : undefined)}>
            <Switch.HiddenInput />
            <Switch.Control />
            <Switch.Label>Failures first</Switch.Label>
          </Switch.Root>
        </HStack>
        {backups.data && <Totals page={backups.data} />}
        <PagedTable
          label="Backups"
          columns={columns}
          rowKey={(backup) => backup.id}
          emptyText={filtered ? 'No backups match.' : 'No backups yet.'}
          query={backups}
          list={list}
        />
      </Stack>
    </>
  );
}
