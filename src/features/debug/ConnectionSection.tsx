import { DataTable, type Column } from '../../components/DataTable';
import { Facts } from '../../components/Facts';
import { Section } from '../../components/Section';
import { useAppSelector } from '../../app/hooks';
import type { JoinedGroup } from '../realtime/realtimeSlice';
import { selectConnection, selectConnectionError, selectJoinedGroups } from '../realtime/selectors';

const groupColumns: Column<JoinedGroup>[] = [
  { key: 'name', header: 'Group', cell: (group) => group.name },
  { key: 'args', header: 'Arguments', cell: (group) => JSON.stringify(group.args) },
  { key: 'count', header: 'Held by', numeric: true, cell: (group) => (group.count === 1 ? '1 page' : `${group.count} pages`) },
];

/** The live connection as the store sees it: its state, the last error, and the groups pages hold. */
export function ConnectionSection() {
  const connection = useAppSelector(selectConnection);
  const error = useAppSelector(selectConnectionError);
  const groups = Object.values(useAppSelector(selectJoinedGroups));

  return (
    <Section title="Live connection">
      <Facts
        items={[
          ['State', connection],
          ['Last error', error ?? 'None'],
        ]}
      />
      <DataTable
        label="Joined groups"
        columns={groupColumns}
        rows={groups}
        rowKey={(group) => `${group.name}${JSON.stringify(group.args)}`}
        loading={false}
        emptyText="No groups joined."
      />
    </Section>
  );
}
