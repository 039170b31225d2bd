import { Button, HStack, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { Group } from '../../../contracts/groups';
import { otherErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { GroupFields } from './GroupFields';
import { groupFormErrors } from './groupFormErrors';
import { useUpdateGroupMutation } from './groupsApi';

/** Rename and describe a group (admins). Mount it keyed by the saved values, so it starts from them. */
export function GroupDetailsForm({ group }: { group: Group }) {
  const [updateGroup, { isLoading, error }] = useUpdateGroupMutation();
  const [value, setValue] = useState({ name: group.name, description: group.description });
  const errors = groupFormErrors(error);
  const changed = value.name.trim() !== group.name || value.description.trim() !== group.description;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    updateGroup({ groupId: group.id, name: value.name.trim(), description: value.description.trim() });
  };

  return (
    <form onSubmit={submit} aria-busy={isLoading} noValidate>
      <Stack gap="4" maxW="lg">
        {otherErrors(errors, ['name', 'description']).map((message) => (
          <Notice key={message} status="error" title={message} />
        ))}
        <GroupFields value={value} onChange={setValue} errors={errors} />
        <HStack>
          <Button type="submit" loading={isLoading} disabled={!changed || value.name.trim() === ''}>
            Save
          </Button>
        </HStack>
      </Stack>
    </form>
  );
}
