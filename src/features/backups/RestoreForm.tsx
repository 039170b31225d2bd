import { Field, Input, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Backup } from '../../../contracts/backups';
import { routePath } from '../../../contracts/routes';
import { errorStatus, problemText } from '../../api/problemText';
import { formatDateTime } from '../../components/DateTime';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { nameHint, useNameCheck } from '../instances/useNameCheck';
import { useRestoreBackupMutation } from './backupsApi';

/**
 * Restores a database backup into a new instance, named here with the rules checked as it is
 * typed; the new instance's page follows, where it is seen being created.
 */
export function RestoreForm({ backup, onDone }: { backup: Backup; onDone: () => void }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const check = useNameCheck(name);
  const [restore, { isLoading, error, originalArgs }] = useRestoreBackupMutation();

  // A 409 is a name another instance took meanwhile.
  const errors = errorStatus(error) === 409 ? { name: [problemText(error) ?? 'Another instance has this name.'] } : fieldErrors(error);
  const problem = check.problem ?? (submitted && name === '' ? 'Give the new instance a name.' : null);
  // The server's word on the name holds for the name it was sent, not for one typed since.
  const nameErrors = problem ? [problem] : originalArgs?.name === name ? errors.name : undefined;

  const submit = async () => {
    setSubmitted(true);
    if (name === '' || check.problem) return;
    const { data } = await restore({ instanceId: backup.instanceId, backupId: backup.id, name });
    if (!data) return;
    onDone();
    navigate(routePath('singleInstance', { id: data.id }));
  };

  return (
    <DialogForm submitLabel="Restore" busy={isLoading} onSubmit={submit}>
      <Text>
        The backup of {backup.instanceName} taken {formatDateTime(backup.startedAt)} becomes a new instance. {backup.instanceName}{' '}
        itself is not changed.
      </Text>
      {otherErrors(errors, ['name', 'backupId']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root required invalid={!!nameErrors?.length}>
        <Field.Label>New instance name</Field.Label>
        <Input autoFocus autoComplete="off" spellCheck={false} maxLength={40} value={name} onChange={(event) => setName(event.target.value)} />
        {nameErrors?.length ? (
          <Field.ErrorText>{nameErrors.join(' ')}</Field.ErrorText>
        ) : (
          <Field.HelperText aria-live="polite">{nameHint(check)}</Field.HelperText>
        )}
      </Field.Root>
    </DialogForm>
  );
}
