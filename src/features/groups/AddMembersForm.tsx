import { Checkbox, HStack, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { Group } from '../../../contracts/groups';
import { DialogForm } from '../../components/FormDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/ListStates';
import { Pager } from '../../components/Pager';
import { RoleBadge } from '../../components/RoleBadge';
import { SearchInput } from '../../components/SearchInput';
import { useAddMembersMutation, useAvailableUsersQuery } from './groupsApi';

const pageSize = 10;

/**
 * The Add members dialog's picker: users not yet in the group, searched and paged on the
 * server; the choice is kept across searches and pages until it is added.
 */
export function AddMembersForm({ group, onDone }: { group: Pick<Group, 'id' | 'name'>; onDone: () => void }) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(pageSize);
  const [chosen, setChosen] = useState<ReadonlyMap<string, string>>(new Map());
  const candidates = useAvailableUsersQuery({ groupId: group.id, page, pageSize: size, search: search.trim() || undefined });
  const [addMembers, { isLoading }] = useAddMembersMutation();

  const toggle = (id: string, email: string, on: boolean) =>
    setChosen((current) => {
      const next = new Map(current);
      if (on) next.set(id, email);
      else next.delete(id);
      return next;
    });

  const submit = async () => {
    const { error } = await addMembers({ groupId: group.id, userIds: [...chosen.keys()] });
    if (!error) onDone();
  };

  let list;
  if (candidates.isLoading) list = <LoadingState label="Loading users…" />;
  else if (!candidates.data) list = <ErrorState title="Could not load the users." onRetry={candidates.refetch} />;
  else if (candidates.data.items.length === 0) {
    list = <EmptyState title={search.trim() ? 'No users match.' : 'Everyone is already a member.'} />;
  } else {
    list = (
      <Stack as="ul" aria-label="Users to add" gap="2" listStyleType="none" aria-busy={candidates.isFetching}>
        {candidates.data.items.map((user) => (
          <li key={user.id}>
            <Checkbox.Root checked={chosen.has(user.id)} onCheckedChange={({ checked }) => toggle(user.id, user.email, checked === true)}>
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>
                <HStack gap="2">
                  <span>{user.email}</span>
                  <RoleBadge role={user.role} />
                </HStack>
              </Checkbox.Label>
            </Checkbox.Root>
          </li>
        ))}
      </Stack>
    );
  }

  return (
    <DialogForm submitLabel="Add selected" busy={isLoading} onSubmit={submit} submitDisabled={chosen.size === 0}>
      <SearchInput
        label="Search users"
        value={search}
        onChange={(text) => {
          setSearch(text);
          setPage(1);
        }}
      />
      {list}
      {candidates.data && candidates.data.total > size && (
        <Pager
          label="Pages of users"
          page={page}
          pageSize={size}
          total={candidates.data.total}
          onPageChange={setPage}
          onPageSizeChange={(next) => {
            setSize(next);
            setPage(1);
          }}
        />
      )}
      <Text color="fg.muted" fontSize="sm" aria-live="polite">
        {chosen.size === 0 ? 'No one selected.' : `${chosen.size} selected: ${[...chosen.values()].join(', ')}`}
      </Text>
    </DialogForm>
  );
}
