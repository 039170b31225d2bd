import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { routePath } from '../../../contracts/routes';
import { otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { GroupFields } from './GroupFields';
import { groupFormErrors } from './groupFormErrors';
import { useCreateGroupMutation } from './groupsApi';

/** The Create group dialog's form; a new group opens at once, to add its members. */
export function CreateGroupForm() {
  const navigate = useNavigate();
  const [createGroup, { isLoading, error }] = useCreateGroupMutation();
  const [group, setGroup] = useState({ name: '', description: '' });
  const errors = groupFormErrors(error);

  const submit = async () => {
    const { data } = await createGroup({ name: group.name.trim(), description: group.description.trim() });
    if (data) navigate(routePath('group', { id: data.id }));
  };

  return (
    <DialogForm submitLabel="Create" busy={isLoading} onSubmit={submit} submitDisabled={group.name.trim() === ''}>
      {otherErrors(errors, ['name', 'description']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <GroupFields value={group} onChange={setGroup} errors={errors} autoFocus />
    </DialogForm>
  );
}
