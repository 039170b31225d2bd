import { Field, Textarea } from '@chakra-ui/react';
import { useState } from 'react';
import type { Instance } from '../../../contracts/instances';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { SelectField } from '../../components/SelectField';
import { useAllGroupsQuery } from '../groups/groupsApi';
import { useUpdateInstanceMutation } from './instancesApi';

/** The Edit details dialog's form: the description, and for admins the group the instance is in. */
export function InstanceDetailsForm({ instance, canMove, onDone }: { instance: Instance; canMove: boolean; onDone: () => void }) {
  const [update, { isLoading, error }] = useUpdateInstanceMutation();
  const { data: groups = [] } = useAllGroupsQuery(undefined, { skip: !canMove });
  const [description, setDescription] = useState(instance.description);
  const [groupId, setGroupId] = useState(instance.groupId ?? '');
  const errors = fieldErrors(error);

  const submit = async () => {
    const { error: failed } = await update({
      id: instance.id,
      description: description.trim(),
      ...(canMove && { groupId: groupId || null }),
    });
    if (!failed) onDone();
  };

  return (
    <DialogForm submitLabel="Save" busy={isLoading} onSubmit={submit}>
      {otherErrors(errors, ['description', 'groupId']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root invalid={!!errors.description}>
        <Field.Label>Description</Field.Label>
        <Textarea rows={3} maxLength={1000} value={description} onChange={(event) => setDescription(event.target.value)} />
        {errors.description && <Field.ErrorText>{errors.description.join(' ')}</Field.ErrorText>}
      </Field.Root>
      {canMove && (
        <SelectField
          label="Group"
          value={groupId}
          options={[{ value: '', label: 'No group' }, ...groups.map((group) => ({ value: group.id, label: group.name }))]}
          onChange={setGroupId}
          errors={errors.groupId}
        />
      )}
    </DialogForm>
  );
}
