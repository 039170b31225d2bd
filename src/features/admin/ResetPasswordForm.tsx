import { useState } from 'react';
import type { User } from '../../../contracts/users';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { PasswordField } from '../../components/PasswordField';
import { useChangeUserPasswordMutation } from './usersApi';

/** The Reset password dialog's form: a new password for someone else, which ends their sessions. */
export function ResetPasswordForm({ user, onDone }: { user: Pick<User, 'id' | 'email'>; onDone: () => void }) {
  const [changePassword, { isLoading, error }] = useChangeUserPasswordMutation();
  const [password, setPassword] = useState('');
  const errors = fieldErrors(error);

  const submit = async () => {
    const outcome = await changePassword({ userId: user.id, newPassword: password });
    if (!outcome.error) onDone();
  };

  return (
    <DialogForm submitLabel="Set password" busy={isLoading} onSubmit={submit}>
      <Notice status="info" title={`Every session of ${user.email} ends.`}>
        Tell them the new password by a safe way; they can change it on their profile.
      </Notice>
      {otherErrors(errors, ['password']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <PasswordField label="New password" value={password} onChange={setPassword} errors={errors.password} autoFocus />
    </DialogForm>
  );
}
