import { Button, HStack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { Group } from '../../../contracts/groups';
import { hasRole } from '../../../contracts/roles';
import { routePath } from '../../../contracts/routes';
import { useAppSelector } from '../../app/hooks';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { DateTime } from '../../components/DateTime';
import { FormDialog } from '../../components/FormDialog';
import { PageHeader } from '../../components/PageHeader';
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
      <PagedTable
        label="Groups"
        columns={columns}
        rowKey={(group) => group.id}
        emptyText={list.args.search ? 'No groups match.' : isAdmin ? 'No groups yet.' : 'You are not a member of any group.'}
        query={groups}
        list={list}
      />
      {isAdmin && (
        <FormDialog title="Create group" open={creating} onOpenChange={setCreating}>
          <CreateGroupForm />
        </FormDialog>
      )}
    </>
  );
}
