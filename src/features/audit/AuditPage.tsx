import { Code, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import type { AuditEntry } from '../../../contracts/users';
import { routePath } from '../../../contracts/routes';
import type { Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { PageHeader } from '../../components/PageHeader';
import { PagedTable } from '../../components/PagedTable';
import { SearchInput } from '../../components/SearchInput';
import { SelectField } from '../../components/SelectField';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { maxPageSize } from '../../../contracts/pageLimits';
import { useUsersQuery } from '../admin/usersApi';
import { useAuditEntriesQuery, type AuditArgs } from './auditApi';

const columns: Column<AuditEntry>[] = [
  { key: 'at', header: 'When', cell: (entry) => <DateTime value={entry.at} /> },
  {
    key: 'user',
    header: 'User',
    cell: (entry) =>
      entry.userId ? <TextLink to={routePath('admin-user', { id: entry.userId })}>{entry.userEmail ?? entry.userId}</TextLink> : 'System',
  },
  { key: 'action', header: 'Action', cell: (entry) => <Code variant="plain">{entry.action}</Code> },
  { key: 'target', header: 'Target', cell: (entry) => <Target entry={entry} /> },
  { key: 'outcome', header: 'Outcome', cell: (entry) => (entry.outcome === 'success' ? 'Success' : 'Failure') },
  { key: 'ip', header: 'Address', cell: (entry) => entry.ip ?? '—' },
];

const outcomeOptions = [
  { value: '', label: 'Any outcome' },
  { value: 'success', label: 'Success' },
  { value: 'failure', label: 'Failure' },
];

/** The user filter offers the first users by e-mail, as many as one page of the API holds. */
const userChoices = { page: 1, pageSize: maxPageSize, sort: 'email' };

/** A day of the URL (`2025-03-05`) as the instant it starts, in the reader's time. */
const startOf = (day: string | undefined, addDays = 0) => {
  if (!day) return undefined;
  const at = new Date(`${day}T00:00:00`);
  if (Number.isNaN(at.getTime())) return undefined;
  at.setDate(at.getDate() + addDays);
  return at.toISOString();
};

const filterNames = ['userId', 'action', 'target', 'outcome', 'from', 'to'] as const;

/**
 * The audit trail for admins: who did what to which target, newest first, filtered by user,
 * action, target, outcome and a range of days, all kept in the URL.
 */
export function AuditPage() {
  const list = useListParams({ filters: filterNames });
  const { filters } = list;
  const users = useUsersQuery(userChoices);
  const args: AuditArgs = {
    page: list.params.page,
    pageSize: list.params.pageSize,
    userId: filters.userId,
    action: filters.action?.trim() || undefined,
    target: filters.target?.trim() || undefined,
    outcome: filters.outcome === 'success' || filters.outcome === 'failure' ? filters.outcome : undefined,
    from: startOf(filters.from),
    // The "to" day is included: the range ends where the next day starts.
    to: startOf(filters.to, 1),
  };
  const entries = useAuditEntriesQuery(args);
  const filtered = filterNames.some((name) => filters[name]);

  return (
    <>
      <PageHeader title="Audit" description="Who did what to which target, and whether it worked; newest first." />
      <HStack gap="4" mb="4" align="end" wrap="wrap">
        <SelectField
          label="User"
          width="56"
          value={filters.userId ?? ''}
          options={[{ value: '', label: 'Anyone' }, ...(users.data?.items ?? []).map((user) => ({ value: user.id, label: user.email }))]}
          onChange={(userId) => list.setFilter('userId', userId || undefined)}
        />
        <SearchInput label="Action" value={filters.action ?? ''} onChange={(action) => list.setFilter('action', action || undefined)} />
        <SearchInput label="Target" value={filters.target ?? ''} onChange={(target) => list.setFilter('target', target || undefined)} />
        <SelectField
          label="Outcome"
          width="40"
          value={filters.outcome ?? ''}
          options={outcomeOptions}
          onChange={(outcome) => list.setFilter('outcome', outcome || undefined)}
        />
        <DayField label="From" value={filters.from} onChange={(day) => list.setFilter('from', day)} />
        <DayField label="To" value={filters.to} onChange={(day) => list.setFilter('to', day)} />
      </HStack>
      <PagedTable
        label="Audit entries"
        columns={columns}
        rowKey={(entry) => entry.id}
        sortable={false}
        emptyText={filtered ? 'No entries match.' : 'Nothing has been audited yet.'}
        query={entries}
        list={list}
      />
    </>
  );
}

function DayField({ label, value, onChange }: { label: string; value?: string; onChange: (day: string | undefined) => void }) {
  return (
    <Field.Root w="44">
      <Field.Label>{label}</Field.Label>
      <Input type="date" value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)} />
    </Field.Root>
  );
}

/** The target by its name, linked to its screen while it exists, with the id it was recorded under beneath. */
function Target({ entry }: { entry: AuditEntry }) {
  if (!entry.target) return '—';
  if (!entry.targetName) return entry.target;
  return (
    <Stack gap="0">
      {entry.targetLink ? <TextLink to={entry.targetLink}>{entry.targetName}</TextLink> : <Text>{entry.targetName}</Text>}
      <Text fontSize="xs" color="fg.muted">
        {entry.target}
      </Text>
    </Stack>
  );
}
