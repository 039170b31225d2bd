import { Button, HStack } from '@chakra-ui/react';
import { useState } from 'react';
import type { Group, GroupMember } from '../../../contracts/groups';
import { useAppDispatch } from '../../app/hooks';
import type { Column } from '../../components/DataTable';
import { PagedTable } from '../../components/PagedTable';
import { FormDialog } from '../../components/FormDialog';
import { RoleBadge } from '../../components/RoleBadge';
import { SearchInput } from '../../components/SearchInput';
import { Section } from '../../components/Section';
import { useListParams } from '../../components/useListParams';
import { AddMembersForm } from './AddMembersForm';
import { useGroupMembersQuery } from './groupsApi';
import { memberRemovalRequested } from './groupsSaga';

/** A group's members; admins add and remove them. */
export function MembersSection({ group, canEdit }: { group: Group; canEdit: boolean }) {
  const dispatch = useAppDispatch();
  const list = useListParams({ prefix: 'members' });
  const members = useGroupMembersQuery({ groupId: group.id, ...list.args });
  const [adding, setAdding] = useState(false);

  const columns: Column<GroupMember>[] = [
    { key: 'email', header: 'E-mail', sortBy: 'email', cell: (member) => member.email },
    { key: 'role', header: 'Role', cell: (member) => <RoleBadge role={member.role} /> },
  ];
  if (canEdit) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      numeric: true,
      cell: (member) => (
        <Button
          size="xs"
          variant="outline"
          colorPalette="red"
          aria-label={`Remove ${member.email}`}
          onClick={() => dispatch(memberRemovalRequested({ group, member }))}
        >
          Remove
        </Button>
      ),
    });
  }

  return (
    <Section
      title="Members"
      description="Members see and act on this group's instances."
      actions={canEdit && <Button onClick={() => setAdding(true)}>Add members</Button>}
    >
      <HStack>
        <SearchInput label="Search members" value={list.params.search ?? ''} onChange={list.setSearch} />
      </HStack>
      <PagedTable
        label="Members"
        columns={columns}
        rowKey={(member) => member.id}
        emptyText={list.args.search ? 'No members match.' : 'No members yet.'}
        query={members}
        list={list}
        pagerLabel="Pages of members"
      />
      {canEdit && (
        <FormDialog title="Add members" open={adding} onOpenChange={setAdding}>
          <AddMembersForm group={group} onDone={() => setAdding(false)} />
        </FormDialog>
      )}
    </Section>
  );
}
