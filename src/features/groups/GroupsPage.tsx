import { Button, HStack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { Group } from '../../../contracts/groups';
import { hasRole } from '../../../contracts/roles';
import { routePath } from '../../../contracts/routes';
import { useAppSelector } from '../../app/hooks';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { FormDialog } from '../../components/FormDialog';
import { PageHeader } from '../../components/PageHeader';
import { Pager } from '../../components/Pager';
import { SearchInput } from '../../components/SearchInput';
import { TextLink } from '../../components/TextLink';
import { useListParams } from '../../components/useListParams';
import { selectCurrentUser } from '../auth/selectors';
import { useHubGroup } from '../realtime/useHubGroup';
import { CreateGroupForm } from './CreateGroupForm';
import { useGroupsQuery } from './groupsApi';

const columns: Column<Group>[] = [
  {
    key: 'name',
    header: 'Name',
    sortBy: 'name',
    cell: (group) => <TextLink to={routePath('group', { id: group.id })}>{group.name}</TextLink>,
  },
  {
    key: 'description',
    header: 'Description',
    cell: (group) => (
      <Text truncate maxW="md" color="fg.muted" title={group.description}>
        {group.description}
      </Text>
    ),
  },
  { key: 'members', header: 'Members', numeric: true, cell: (group) => group.memberCount },
  { key: 'instances', header: 'Instances', numeric: true, cell: (group) => group.instanceCount },
  { key: 'created', header: 'Created', sortBy: 'createdAt', cell: (group) => <DateTime value={group.createdAt} /> },
];

export function GroupsPage() {
  // Live: changes to groups made elsewhere refresh this list.
  useHubGroup('Groups');
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const list = useListParams();
  const groups = useGroupsQuery(list.args);
  const [creating, setCreating] = useState(false);

  return (
    <>
      <PageHeader
        title="Groups"
        description={
          isAdmin
            ? 'Groups decide who may see and act on which instances.'
            : 'The groups you are a member of: their instances are the ones you see.'
        }
        actions={isAdmin && <Button onClick={() => setCreating(true)}>Create group</Button>}
      />
      <HStack mb="4">
        <SearchInput label="Search groups" value={list.params.search ?? ''} onChange={list.setSearch} />
      </HStack>
      <DataTable
        label="Groups"
        columns={columns}
        rows={groups.data?.items}
        rowKey={(group) => group.id}
        sort={list.params.sort}
        onSort={list.setSort}
        loading={groups.isLoading}
        fetching={groups.isFetching}
        failed={groups.isError}
        onRetry={groups.refetch}
        emptyText={list.args.search ? 'No groups match.' : isAdmin ? 'No groups yet.' : 'You are not a member of any group.'}
      />
      {groups.data && groups.data.total > 0 && (
        <Pager
          page={list.params.page}
          pageSize={list.params.pageSize}
          total={groups.data.total}
          onPageChange={list.setPage}
          onPageSizeChange={list.setPageSize}
        />
      )}
      {isAdmin && (
        <FormDialog title="Create group" open={creating} onOpenChange={setCreating}>
          <CreateGroupForm />
        </FormDialog>
      )}
    </>
  );
}
