import { Field, Input } from '@chakra-ui/react';
import { useState } from 'react';
import type { Role } from '../../../contracts/roles';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { PasswordField } from '../../components/PasswordField';
import { roleLabel } from '../../components/RoleBadge';
import { SelectField } from '../../components/SelectField';
import { useCreateUserMutation } from './usersApi';

/** The Create user dialog's form: the server's 400 errors show beside their fields. */
export function CreateUserForm({ roles, onDone }: { roles: Role[]; onDone: () => void }) {
  const [createUser, { isLoading, error }] = useCreateUserMutation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('regular');
  const [password, setPassword] = useState('');
  const errors = fieldErrors(error);

  const submit = async () => {
    const outcome = await createUser({ email: email.trim(), role, password });
    if (!outcome.error) onDone();
  };

  return (
    <DialogForm submitLabel="Create" busy={isLoading} onSubmit={submit}>
      {otherErrors(errors, ['email', 'role', 'password']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root required invalid={!!errors.email}>
        <Field.Label>E-mail</Field.Label>
        <Input type="email" autoComplete="off" autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />
        {errors.email && <Field.ErrorText>{errors.email.join(' ')}</Field.ErrorText>}
      </Field.Root>
      <SelectField
        label="Role"
        value={role}
        options={roles.map((value) => ({ value, label: roleLabel(value) }))}
        onChange={(value) => setRole(value as Role)}
        errors={errors.role}
      />
      <PasswordField label="Initial password" value={password} onChange={setPassword} errors={errors.password} />
    </DialogForm>
  );
}
