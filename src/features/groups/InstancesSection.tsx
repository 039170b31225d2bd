import { Badge } from '@chakra-ui/react';
import { routePath } from '../../../contracts/routes';
import { DataTable, type Column } from '../../components/DataTable';
import { Pager } from '../../components/Pager';
import { Section } from '../../components/Section';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { useGroupInstancesQuery, type GroupInstance } from './groupsApi';

const columns: Column<GroupInstance>[] = [
  {
    key: 'name',
    header: 'Name',
    cell: (instance) => <TextLink to={routePath('singleInstance', { id: instance.id })}>{instance.name}</TextLink>,
  },
  { key: 'type', header: 'Type', cell: (instance) => instance.type ?? '—' },
  { key: 'status', header: 'Status', cell: (instance) => (instance.status ? <Badge>{instance.status}</Badge> : '—') },
];

/** The instances in a group; moving them in or out happens on the instances' own screens. */
export function InstancesSection({ groupId }: { groupId: string }) {
  const list = useListParams({ prefix: 'instances' });
  // This list pages only: no search, no sort.
  const instances = useGroupInstancesQuery({ groupId, page: list.params.page, pageSize: list.params.pageSize });

  return (
    <Section title="Instances">
      <DataTable
        label="Instances"
        columns={columns}
        rows={instances.data?.items}
        rowKey={(instance) => instance.id}
        loading={instances.isLoading}
        fetching={instances.isFetching}
        failed={instances.isError}
        onRetry={instances.refetch}
        emptyText="No instances in this group yet."
      />
      {instances.data && instances.data.total > 0 && (
        <Pager
          label="Pages of instances"
          page={list.params.page}
          pageSize={list.params.pageSize}
          total={instances.data.total}
          onPageChange={list.setPage}
          onPageSizeChange={list.setPageSize}
        />
      )}
    </Section>
  );
}
