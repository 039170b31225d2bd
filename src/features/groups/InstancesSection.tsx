import { routePath } from '../../../contracts/routes';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { Section } from '../../components/Section';
import { StatusBadge } from '../../components/StatusBadge';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { typeLabel } from '../instances/typeLabels';
import { GroupTotals } from '../statistics/GroupTotals';
import { useGroupInstancesQuery, type GroupInstance } from './groupsApi';

const columns: Column<GroupInstance>[] = [
  {
    key: 'name',
    header: 'Name',
    cell: (instance) => <TextLink to={routePath('singleInstance', { id: instance.id })}>{instance.name}</TextLink>,
  },
  { key: 'type', header: 'Type', cell: (instance) => (instance.type ? typeLabel(instance.type) : '—') },
  { key: 'status', header: 'Status', cell: (instance) => (instance.status ? <StatusBadge status={instance.status} /> : '—') },
];

/** The instances in a group; moving them in or out happens on the instances' own screens. */
export function InstancesSection({ groupId }: { groupId: string }) {
  const list = useListParams({ prefix: 'instances' });
  // This list pages only: no search, no sort.
  const instances = useGroupInstancesQuery({ groupId, page: list.params.page, pageSize: list.params.pageSize });

  return (
    <Section title="Instances">
      <GroupTotals groupId={groupId} />
      <PagedTable
        label="Instances"
        columns={columns}
        rowKey={(instance) => instance.id}
        emptyText="No instances in this group yet."
        query={instances}
        list={list}
        sortable={false}
        pagerLabel="Pages of instances"
      />
    </Section>
  );
}
