import { Button, Checkbox, Field, HStack, Input, Stack, Textarea, useFieldContext } from '@chakra-ui/react';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { clusterPresetNames, clusterPresets, worstCaseFailoverSeconds, type ClusterPresetName } from '../../../contracts/clusters';
import type { Host } from '../../../contracts/hosts';
import { pgMemberOptions } from './memberOptions';
import type { CreateInstanceRequest } from '../../../contracts/instances';
import { instanceTypes, type InstanceType } from '../../../contracts/instanceValues';
import { hasRole } from '../../../contracts/roles';
import { routePath, routes } from '../../../contracts/routes';
import { errorStatus, problemText } from '../../api/problemText';
import { useAppSelector } from '../../app/hooks';
import { fieldErrors, otherErrors, type FieldErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { Select } from '../../components/Select';
import { SelectField } from '../../components/SelectField';
import { statusLabel } from '../../components/StatusBadge';
import { TextLink } from '../../components/TextLink';
import { selectCurrentUser } from '../auth/selectors';
import { useAllGroupsQuery } from '../groups/groupsApi';
import { useGetHostsQuery } from '../hosts/hostsApi';
import { InitialParameters, type ParameterRow } from './InitialParameters';
import { useCreateInstanceMutation, useInstancesQuery } from './instancesApi';
import { typeLabels } from './typeLabels';
import { nameHint, useNameCheck } from './useNameCheck';

const fields = ['name', 'type', 'members', 'dcsInstanceId', 'synchronous', 'failoverPreset', 'groupId', 'hostId', 'description', 'parameters'];

// etcd runs as 1 member or a cluster of 3 or 5 (a majority must answer); PostgreSQL as one server
// or a Patroni cluster of a leader and its standbys.
const etcdMemberOptions = [
  { value: '1', label: '1 member' },
  { value: '3', label: '3 members: writable with one lost' },
  { value: '5', label: '5 members: writable with two lost' },
];

const presetLabels: Record<ClusterPresetName, string> = { fast: 'Fast', normal: 'Normal', safe: 'Safe' };
const presetOptions = clusterPresetNames.map((name) => ({
  value: name,
  label: `${presetLabels[name]}: a lost leader is replaced within ~${worstCaseFailoverSeconds(clusterPresets[name])} s`,
}));

/** A host as offered for a new instance: a lost or draining one is listed, but takes no new instance. */
function hostOption(host: Host) {
  const room = `${host.instanceCount} instance${host.instanceCount === 1 ? '' : 's'}, ${host.freePorts} free port${host.freePorts === 1 ? '' : 's'}`;
  const unavailable = host.state === 'lost' ? 'lost' : host.draining ? 'draining' : null;
  return {
    value: host.id,
    label: `${host.name} (${host.address}) — ${room}${unavailable ? ` (${unavailable})` : ''}`,
    disabled: unavailable !== null,
  };
}

/** The type a link asked for (`?type=etcd`), else PostgreSQL. */
const typeOf = (asked: string | null): InstanceType => instanceTypes.find((type) => type === asked) ?? 'pg';

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

/** A checkbox whose field's helper and error texts describe it, as they describe a Select. */
function FieldCheckbox({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const field = useFieldContext();
  const describedBy = [field?.ariaDescribedby, field?.getInputProps()['aria-errormessage']].filter(Boolean).join(' ') || undefined;
  return (
    <Checkbox.Root checked={checked} onCheckedChange={(details) => onChange(details.checked === true)}>
      <Checkbox.HiddenInput aria-describedby={describedBy} />
      <Checkbox.Control />
      <Checkbox.Label>{label}</Checkbox.Label>
    </Checkbox.Root>
  );
}

/**
 * A link to this page from itself (the navigation's "Add instance" while the form is open) starts a
 * fresh form from its query, as it would from any other page.
 */
export function CreateInstancePage() {
  const { key } = useLocation();
  return <CreateInstanceForm key={key} />;
}

function CreateInstanceForm() {
  const navigate = useNavigate();
  const isAdmin = hasRole(useAppSelector(selectCurrentUser), 'admin');
  const groups = useAllGroupsQuery();
  const hosts = useGetHostsQuery(undefined, { skip: !isAdmin });
  const [createInstance, { isLoading, error, originalArgs }] = useCreateInstanceMutation();

  // A group's "Add instance" opens this page with that group chosen, and a link may choose the type too.
  const [searchParams] = useSearchParams();
  const [name, setName] = useState('');
  const [type, setType] = useState(() => typeOf(searchParams.get('type')));
  const [members, setMembers] = useState('1');
  const [groupId, setGroupId] = useState(() => searchParams.get('groupId') ?? '');
  const [dcsInstanceId, setDcsInstanceId] = useState('');
  // None chosen: the server picks the host.
  const [hostId, setHostId] = useState('');
  const [synchronous, setSynchronous] = useState(false);
  const [failoverPreset, setFailoverPreset] = useState<ClusterPresetName>('fast');
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
  const isCluster = type === 'pg' && members !== '1';
  // The consensus store is an etcd instance of the new instance's group, or of no group for one in none.
  const etcds = useInstancesQuery({ page: 1, pageSize: 100, type: 'etcd', groupId: groupId || 'none' }, { skip: !isCluster });
  // None chosen: the server makes the cluster a 3-member etcd of its own, named after it.
  const newStoreName = `${name || 'name'}-dcs`;
  // A single-process Warden has one host: nothing to choose.
  const hostChoice = (hosts.data?.items.length ?? 0) > 1;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (name === '' || nameCheck.problem || groupMissing) return;
    const body: CreateInstanceRequest = {
      name,
      type,
      ...(groupId && { groupId }),
      ...(members !== '1' && { members: Number(members) }),
      ...(isCluster && { ...(dcsInstanceId && { dcsInstanceId }), synchronous, failoverPreset }),
      ...(hostChoice && hostId && { hostId }),
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
            onChange={(value) => {
              setType(value as InstanceType);
              // The two types offer different member counts.
              setMembers('1');
            }}
            errors={errors.type}
          />

          <SelectField
            label="Members"
            value={members}
            options={type === 'etcd' ? etcdMemberOptions : pgMemberOptions}
            onChange={setMembers}
            errors={errors.members}
          />

          <SelectField
            label="Group"
            value={groupId}
            options={[
              { value: '', label: isAdmin ? 'No group' : 'Choose one of your groups' },
              ...(groups.data ?? []).map((group) => ({ value: group.id, label: group.name })),
            ]}
            onChange={(value) => {
              setGroupId(value);
              // The etcd instances on offer are the group's: one chosen from another group no longer fits.
              setDcsInstanceId('');
            }}
            errors={submitted && groupMissing ? ['Choose one of your groups.'] : errors.groupId}
          />

          {isCluster && (
            <>
              <Field.Root invalid={!!errors.dcsInstanceId?.length}>
                <Field.Label>Consensus store</Field.Label>
                <Select
                  value={dcsInstanceId}
                  options={[
                    { value: '', label: `A new 3-member etcd (${newStoreName})` },
                    // The server takes only a running one; the others say why they cannot be chosen.
                    ...(etcds.data?.items ?? []).map((etcd) => ({
                      value: etcd.id,
                      label: etcd.status === 'running' ? etcd.name : `${etcd.name} (${statusLabel(etcd.status).toLowerCase()})`,
                      disabled: etcd.status !== 'running',
                    })),
                  ]}
                  onChange={setDcsInstanceId}
                />
                <Field.HelperText>
                  A cluster keeps its leader lock in an etcd instance of the same group: one of the group's, or a new one of 3
                  members made with the cluster.
                </Field.HelperText>
                {!!errors.dcsInstanceId?.length && <Field.ErrorText>{errors.dcsInstanceId.join(' ')}</Field.ErrorText>}
              </Field.Root>

              <Field.Root invalid={!!errors.synchronous?.length}>
                <FieldCheckbox label="Synchronous replication" checked={synchronous} onChange={setSynchronous} />
                <Field.HelperText>
                  A commit waits until a standby has it too, so a failover loses no acknowledged commit; writes are slower. While no
                  standby is left, commits stop waiting until one is back.
                </Field.HelperText>
                {errors.synchronous && <Field.ErrorText>{errors.synchronous.join(' ')}</Field.ErrorText>}
              </Field.Root>

              <SelectField
                label="Failover timing"
                value={failoverPreset}
                options={presetOptions}
                onChange={(value) => setFailoverPreset(value as ClusterPresetName)}
                errors={errors.failoverPreset}
              />
            </>
          )}

          {hostChoice && (
            <Field.Root invalid={!!errors.hostId?.length}>
              <Field.Label>Host</Field.Label>
              <Select
                value={hostId}
                options={[{ value: '', label: 'Automatic — the host with the most room' }, ...(hosts.data?.items ?? []).map(hostOption)]}
                onChange={setHostId}
              />
              <Field.HelperText>Where the instance runs; its ports come from that host's range.</Field.HelperText>
              {!!errors.hostId?.length && <Field.ErrorText>{errors.hostId.join(' ')}</Field.ErrorText>}
            </Field.Root>
          )}

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
