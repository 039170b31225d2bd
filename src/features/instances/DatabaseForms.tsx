import { Checkbox, Field, Fieldset, Input, Stack, Switch } from '@chakra-ui/react';
import { useState } from 'react';
import type { DbRole } from '../../../contracts/databases';
import { fieldErrors, otherErrors, type FieldErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { SelectField } from '../../components/SelectField';
import { useCreateDatabaseMutation, useCreateInstanceRoleMutation, useUpdateInstanceRoleMutation } from './databasesApi';

// The forms of the Databases & roles section. The server checks every name and membership; the
// forms only offer what it would accept (the owner and roles made through Warden).

/** Roles a database may belong to, or a role may join: the owner and those made here. */
export const usableRoles = (roles: DbRole[] | undefined) => (roles ?? []).filter((role) => role.owner || role.managed);

function Errors({ errors, fields }: { errors: FieldErrors; fields: string[] }) {
  return otherErrors(errors, fields).map((message) => <Notice key={message} status="error" title={message} />);
}

function TextField(props: { label: string; value: string; onChange: (value: string) => void; errors?: string[]; type?: string; required?: boolean; helper?: string }) {
  return (
    <Field.Root required={props.required} invalid={!!props.errors?.length}>
      <Field.Label>{props.label}</Field.Label>
      <Input type={props.type ?? 'text'} autoComplete="off" value={props.value} onChange={(event) => props.onChange(event.target.value)} />
      {props.helper && <Field.HelperText>{props.helper}</Field.HelperText>}
      {!!props.errors?.length && <Field.ErrorText>{props.errors.join(' ')}</Field.ErrorText>}
    </Field.Root>
  );
}

const nameHelper = 'Lowercase letters, digits and _, starting with a letter or _.';

function Memberships({ roles, value, onChange, errors }: { roles: DbRole[]; value: string[]; onChange: (value: string[]) => void; errors?: string[] }) {
  if (roles.length === 0) return null;
  return (
    <Fieldset.Root invalid={!!errors?.length}>
      <Fieldset.Legend>Member of</Fieldset.Legend>
      <Stack gap="2">
        {roles.map((role) => (
          <Checkbox.Root
            key={role.name}
            checked={value.includes(role.name)}
            onCheckedChange={({ checked }) => onChange(checked ? [...value, role.name] : value.filter((name) => name !== role.name))}
          >
            <Checkbox.HiddenInput />
            <Checkbox.Control />
            <Checkbox.Label>{role.owner ? `${role.name} (owner)` : role.name}</Checkbox.Label>
          </Checkbox.Root>
        ))}
      </Stack>
      {!!errors?.length && <Fieldset.ErrorText>{errors.join(' ')}</Fieldset.ErrorText>}
    </Fieldset.Root>
  );
}

export function CreateDatabaseForm({ instanceId, roles, onDone }: { instanceId: string; roles: DbRole[]; onDone: () => void }) {
  const [create, { isLoading, error }] = useCreateDatabaseMutation();
  const [name, setName] = useState('');
  const [owner, setOwner] = useState(roles.find((role) => role.owner)?.name ?? '');
  const errors = fieldErrors(error);
  const submit = async () => {
    const { data } = await create({ instanceId, name: name.trim(), ...(owner && { owner }) });
    if (data) onDone();
  };
  return (
    <DialogForm submitLabel="Create" busy={isLoading} onSubmit={submit} submitDisabled={name.trim() === ''}>
      <Errors errors={errors} fields={['name', 'owner']} />
      <TextField label="Name" value={name} onChange={setName} errors={errors.name} required helper={nameHelper} />
      <SelectField label="Owner" value={owner} options={roles.map((role) => ({ value: role.name, label: role.name }))} onChange={setOwner} errors={errors.owner} />
    </DialogForm>
  );
}

export function CreateRoleForm({ instanceId, roles, onDone }: { instanceId: string; roles: DbRole[]; onDone: () => void }) {
  const [create, { isLoading, error }] = useCreateInstanceRoleMutation();
  const [name, setName] = useState('');
  const [login, setLogin] = useState(true);
  const [password, setPassword] = useState('');
  const [memberOf, setMemberOf] = useState<string[]>([]);
  const errors = fieldErrors(error);
  const submit = async () => {
    const { data } = await create({ instanceId, name: name.trim(), login, memberOf, ...(password && { password }) });
    if (data) onDone();
  };
  return (
    <DialogForm submitLabel="Create" busy={isLoading} onSubmit={submit} submitDisabled={name.trim() === ''}>
      <Errors errors={errors} fields={['name', 'password', 'memberOf']} />
      <TextField label="Name" value={name} onChange={setName} errors={errors.name} required helper={nameHelper} />
      <Switch.Root checked={login} onCheckedChange={({ checked }) => setLogin(checked)}>
        <Switch.HiddenInput />
        <Switch.Control />
        <Switch.Label>Can log in</Switch.Label>
      </Switch.Root>
      <TextField label="Password" type="password" value={password} onChange={setPassword} errors={errors.password} helper="At least 8 characters; leave empty for none." />
      <Memberships roles={roles} value={memberOf} onChange={setMemberOf} errors={errors.memberOf} />
    </DialogForm>
  );
}

/** Rename, new password, login and memberships; only what changed is sent. */
export function EditRoleForm({ instanceId, role, roles, onDone }: { instanceId: string; role: DbRole; roles: DbRole[]; onDone: () => void }) {
  const [update, { isLoading, error }] = useUpdateInstanceRoleMutation();
  const [name, setName] = useState(role.name);
  const [login, setLogin] = useState(role.login);
  const [password, setPassword] = useState('');
  const [memberOf, setMemberOf] = useState(role.memberOf);
  const errors = fieldErrors(error);
  const changedMembers = memberOf.length !== role.memberOf.length || memberOf.some((name) => !role.memberOf.includes(name));
  const submit = async () => {
    const { data } = await update({
      instanceId,
      name: role.name,
      ...(name.trim() !== role.name && { newName: name.trim() }),
      ...(login !== role.login && { login }),
      ...(password && { password }),
      ...(changedMembers && { memberOf }),
    });
    if (data) onDone();
  };
  return (
    <DialogForm submitLabel="Save" busy={isLoading} onSubmit={submit} submitDisabled={name.trim() === ''}>
      <Errors errors={errors} fields={['newName', 'password', 'memberOf']} />
      <TextField label="Name" value={name} onChange={setName} errors={errors.newName} required helper={nameHelper} />
      <Switch.Root checked={login} onCheckedChange={({ checked }) => setLogin(checked)}>
        <Switch.HiddenInput />
        <Switch.Control />
        <Switch.Label>Can log in</Switch.Label>
      </Switch.Root>
      <TextField label="New password" type="password" value={password} onChange={setPassword} errors={errors.password} helper="Leave empty to keep the current one." />
      <Memberships roles={roles.filter((other) => other.name !== role.name)} value={memberOf} onChange={setMemberOf} errors={errors.memberOf} />
    </DialogForm>
  );
}
