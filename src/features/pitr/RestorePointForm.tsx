import { Field, Input, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { restorePointNamePattern } from '../../../contracts/pitr';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { useCreateRestorePointMutation } from './pitrApi';

const namePattern = new RegExp(restorePointNamePattern);
const nameRule = 'Up to 63 letters, digits, spaces and . _ : -, starting with a letter or digit.';

/** Names the current WAL position, so that a restore can stop exactly there ("before the migration"). */
export function RestorePointForm({ instanceId, onDone }: { instanceId: string; onDone: () => void }) {
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [create, { isLoading, error, originalArgs }] = useCreateRestorePointMutation();

  const problem = name === '' ? (submitted ? 'Give the restore point a name.' : null) : namePattern.test(name) ? null : nameRule;
  const said = fieldErrors(error);
  const nameErrors = problem ? [problem] : originalArgs?.name === name ? said.name : undefined;

  const submit = async () => {
    setSubmitted(true);
    if (name === '' || problem) return;
    const { data } = await create({ instanceId, name });
    if (data) onDone();
  };

  return (
    <DialogForm submitLabel="Mark restore point" busy={isLoading} onSubmit={() => void submit()}>
      <Text>Marks this moment in the archived WAL, so that a restore can stop exactly here: before a migration or a bulk change, say.</Text>
      {otherErrors(said, ['name']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root required invalid={!!nameErrors?.length}>
        <Field.Label>Restore point name</Field.Label>
        <Input autoFocus autoComplete="off" spellCheck={false} maxLength={63} value={name} onChange={(event) => setName(event.target.value)} />
        {nameErrors?.length ? <Field.ErrorText>{nameErrors.join(' ')}</Field.ErrorText> : <Field.HelperText>{nameRule}</Field.HelperText>}
      </Field.Root>
    </DialogForm>
  );
}
