import { Button, Field, HStack, Input, Stack, Textarea } from '@chakra-ui/react';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import type { CreateInstanceRequest } from '../../../contracts/instances';
import { instanceTypes, type InstanceType } from '../../../contracts/instanceValues';
import { hasRole } from '../../../contracts/roles';
import { routePath, routes } from '../../../contracts/routes';
import { errorStatus, problemText } from '../../api/problemText';
import { useAppSelector } from '../../app/hooks';
import { fieldErrors, otherErrors, type FieldErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { SelectField } from '../../components/SelectField';
import { TextLink } from '../../components/TextLink';
import { selectCurrentUser } from '../auth/selectors';
import { useAllGroupsQuery } from '../groups/groupsApi';
import { InitialParameters, type ParameterRow } from './InitialParameters';
import { useCreateInstanceMutation } from './instancesApi';
import { typeLabels } from './typeLabels';
import { nameHint, useNameCheck } from './useNameCheck';

const fields = ['name', 'type', 'members', 'groupId', 'description', 'parameters'];

/** The form's errors by field; a 409 is a name another instance has. */
function createErrors(error: FetchBaseQueryError | SerializedError | undefined): FieldErrors {
  if (errorStatus(error) === 409) return { name: [problemText(error) ?? 'Another instance has this name.'] };
  return fieldErrors(error);
}

/** Where a parameter's errors may be keyed: by its name alone (as PUT …/config keys them) or under `parameters`. */
const parameterKeys = (name: string) => [name, `parameters.${name}`, `parameters/${name}`];

const parameterErrors = (errors: FieldErrors, name: string) => {
  const said = parameterKeys(name).flatMap((key) => errors[key] ?? []);
  return said.length > 0 ? said : undefined;
};

export function CreateInstancePage() {
  const navigate = useNavigate();
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const groups = useAllGroupsQuery();
  const [createInstance, { isLoading, error, originalArgs }] = useCreateInstanceMutation();

  const [name, setName] = useState('');
  const [type, setType] = useState<InstanceType>('pg');
  // etcd runs as 1 member or a cluster of 3 or 5; PostgreSQL as one.
  const [members, setMembers] = useState('1');
  // A group's "Add instance" opens this page with that group chosen.
  const [searchParams] = useSearchParams();
  const [groupId, setGroupId] = useState(() => searchParams.get('groupId') ?? '');
  const [description, setDescription] = useState('');
  const [parameters, setParameters] = useState<ParameterRow[]>([]);
  // Until the first submit, an empty name and an unchosen group are not complaints yet.
  const [submitted, setSubmitted] = useState(false);

  const nameCheck = useNameCheck(name);
  const errors = createErrors(error);
  const rowNames = parameters.map((row) => row.name.trim()).filter((parameter) => parameter !== '');
  const groupMissing = !isAdmin && groupId === '';
  const nameProblem = nameCheck.problem ?? (submitted && name === '' ? 'Give the instance a name.' : null);
  // The server's word on the name holds for the name it was sent, not for one typed since.
  const nameErrors = nameProblem ? [nameProblem] : originalArgs?.name === name ? errors.name : undefined;
  const noGroups = !isAdmin && groups.data?.length === 0;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (name === '' || nameCheck.problem || groupMissing) return;
    const body: CreateInstanceRequest = {
      name,
      type,
      ...(groupId && { groupId }),
      ...(type === 'etcd' && members !== '1' && { members: Number(members) }),
      ...(description.trim() && { description: description.trim() }),
      ...(rowNames.length > 0 && {
        parameters: Object.fromEntries(parameters.filter((row) => row.name.trim()).map((row) => [row.name.trim(), row.value])),
      }),
    };
    const { data } = await createInstance(body);
    // 202: the instance exists and is being initialized; its page shows it reach running.
    if (data) navigate(routePath('singleInstance', { id: data.id }));
  };

  return (
    <>
      <PageHeader title="Create instance" description="Start a new PostgreSQL or etcd instance, optionally in one of your groups." />
      <form onSubmit={submit} aria-busy={isLoading} noValidate>
        <Stack gap="5" maxW="xl">
          {otherErrors(errors, [...fields, ...rowNames.flatMap(parameterKeys)]).map((message) => (
            <Notice key={message} status="error" title={message} />
          ))}
          {noGroups && (
            <Notice status="warning" title="You are not a member of any group">
              An instance of yours must belong to one of your groups; ask an admin to add you to one.
            </Notice>
          )}

          <Field.Root required invalid={!!nameErrors?.length}>
            <Field.Label>Name</Field.Label>
            <Input
              autoFocus
              autoComplete="off"
              spellCheck={false}
              maxLength={40}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
            {nameErrors?.length ? (
              <Field.ErrorText>{nameErrors.join(' ')}</Field.ErrorText>
            ) : (
              <Field.HelperText aria-live="polite">{nameHint(nameCheck)}</Field.HelperText>
            )}
          </Field.Root>

          <SelectField
            label="Type"
            value={type}
            options={instanceTypes.map((value) => ({ value, label: typeLabels[value] }))}
            onChange={(value) => setType(value as InstanceType)}
            errors={errors.type}
          />

          {type === 'etcd' && (
            <SelectField
              label="Members"
              value={members}
              options={[
                { value: '1', label: '1 member' },
                { value: '3', label: '3 members: writable with one lost' },
                { value: '5', label: '5 members: writable with two lost' },
              ]}
              onChange={setMembers}
              errors={errors.members}
            />
          )}

          <SelectField
            label="Group"
            value={groupId}
            options={[
              { value: '', label: isAdmin ? 'No group' : 'Choose one of your groups' },
              ...(groups.data ?? []).map((group) => ({ value: group.id, label: group.name })),
            ]}
            onChange={setGroupId}
            errors={submitted && groupMissing ? ['Choose one of your groups.'] : errors.groupId}
          />

          <Field.Root invalid={!!errors.description}>
            <Field.Label>Description</Field.Label>
            <Textarea rows={3} maxLength={1000} value={description} onChange={(event) => setDescription(event.target.value)} />
            {errors.description && <Field.ErrorText>{errors.description.join(' ')}</Field.ErrorText>}
          </Field.Root>

          <InitialParameters
            rows={parameters}
            onChange={setParameters}
            errorsOf={(parameter) => parameterErrors(errors, parameter)}
            errors={errors.parameters}
          />

          <HStack gap="4">
            <Button type="submit" loading={isLoading} disabled={noGroups}>
              Create
            </Button>
            <TextLink to={routes.instances.path}>Cancel</TextLink>
          </HStack>
        </Stack>
      </form>
    </>
  );
}
