import { Button, Field, HStack, Input, Text } from '@chakra-ui/react';
import { skipToken } from '@reduxjs/toolkit/query';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryTarget, RecoveryWindow } from '../../../contracts/pitr';
import { routePath } from '../../../contracts/routes';
import { errorStatus, problemOf } from '../../api/problemText';
import { otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { SelectField } from '../../components/SelectField';
import { pgMemberOptions } from '../instances/memberOptions';
import { NewInstanceNameField, useNewInstanceName } from '../instances/NewInstanceNameForm';
import { useRecoveryWindowQuery, useRestorePlanQuery, useRestoreToPointMutation } from './pitrApi';
import { RestorePlanView } from './RestorePlanView';
import { browserTimeZone, inBothZones, parseLocalInput, targetProblem, toLocalInput, toWireTime, windowText } from './targetTime';
import { useSettled } from './useSettled';

/** How long the target must stay still before the server is asked for the plan. */
export const planDelayMs = 400;

/** What the person picked: a moment typed or picked, the latest archived, or a named restore point. */
type Choice = { kind: 'time' } | { kind: 'latest' } | { kind: 'point'; name: string };

const fiveMinutesMs = 5 * 60_000;

/** The target to send and why it cannot be, from what is picked and the window as it is now. */
function targetOf(choice: Choice, time: string, window: RecoveryWindow): { target: RecoveryTarget | null; problem: string | null; says: string } {
  if (choice.kind === 'latest') {
    const now = window.latest ? `; now ${inBothZones(new Date(window.latest))}` : '';
    return { target: 'latest', problem: null, says: `The latest moment archived when the restore starts${now}.` };
  }
  if (choice.kind === 'point') {
    const point = window.restorePoints.find(({ name }) => name === choice.name);
    const when = point ? `, ${inBothZones(new Date(point.at))}` : '';
    return { target: { name: choice.name }, problem: null, says: `Exactly at restore point ${choice.name}${when}, before what came after it.` };
  }
  if (time === '') return { target: null, problem: null, says: `Your time (${browserTimeZone()}), to the second; or pick one below.` };
  const at = parseLocalInput(time);
  if (!at) return { target: null, problem: 'Not a date and time.', says: '' };
  return { target: { time: toWireTime(at) }, problem: targetProblem(window, at), says: inBothZones(at) };
}

const sameTarget = (a: RecoveryTarget | undefined, b: RecoveryTarget | null) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Restores a pg instance as it was at a moment of its recoverable window into a new instance: the
 * moment typed in the person's zone and shown in UTC beside it, checked against the window as it
 * is typed; the plan of a dry run before the restore; then the new instance's page.
 */
export function RestoreToPointForm({ instance, onDone }: { instance: Pick<Instance, 'id' | 'name'>; onDone: () => void }) {
  const navigate = useNavigate();
  // The cached window, which the hub keeps moving while the dialog is open.
  const { data: window } = useRecoveryWindowQuery(instance.id);
  const [choice, setChoice] = useState<Choice>({ kind: 'time' });
  const [time, setTime] = useState('');
  const [members, setMembers] = useState('1');
  const [restore, { isLoading, error, originalArgs }] = useRestoreToPointMutation();
  // A 400 is this form's to show (apiErrorSaga leaves it alone); anything else was toasted.
  const refusal = errorStatus(error) === 400 ? error : undefined;
  const field = useNewInstanceName(refusal, originalArgs?.name);

  const { target, problem, says } = window ? targetOf(choice, time, window) : { target: null, problem: null, says: '' };
  const asking = target && !problem ? JSON.stringify(target) : '';
  const settled = useSettled(asking, planDelayMs);
  const plan = useRestorePlanQuery(target && asking && settled === asking ? { instanceId: instance.id, target, name: field.name } : skipToken);
  // A plan read again for the same target (the window moved) stays on screen meanwhile.
  const planPending = asking !== '' && (settled !== asking || (plan.isFetching && !plan.currentData));

  // The server's word on the target holds while the target is the one it was sent.
  const refused = sameTarget(originalArgs?.target, target) ? problemOf(refusal)?.detail : undefined;

  const pick = (next: Choice, moment: string | null) => {
    setChoice(next);
    if (moment) setTime(toLocalInput(new Date(moment)));
  };

  const submit = async () => {
    if (!field.submit() || !target || problem) return;
    const { data } = await restore({ instanceId: instance.id, target, name: field.name, ...(members !== '1' && { members: Number(members) }) });
    if (!data) return;
    onDone();
    navigate(routePath('singleInstance', { id: data.id }));
  };

  if (!window) return null;
  // Latest and the restore points stay picked (pressed) until the moment is typed; "5 minutes ago" only fills it in.
  const pressed = (candidate: Choice) => (candidate.kind === 'time' ? undefined : JSON.stringify(candidate) === JSON.stringify(choice));
  const picks: { label: string; choice: Choice; moment: () => string | null }[] = [
    { label: 'Latest', choice: { kind: 'latest' }, moment: () => window.latest },
    { label: '5 minutes ago', choice: { kind: 'time' }, moment: () => new Date(Date.now() - fiveMinutesMs).toISOString() },
    ...window.restorePoints.map((point) => ({
      label: `Before restore point ${point.name}`,
      choice: { kind: 'point', name: point.name } as const,
      moment: () => point.at,
    })),
  ];

  return (
    <DialogForm
      submitLabel="Restore"
      busy={isLoading}
      submitDisabled={!target || !!problem || planPending || !plan.currentData}
      onSubmit={() => void submit()}
    >
      <Text>
        A new instance holds {instance.name} as it was at the moment you choose. {instance.name} itself is not changed.
      </Text>
      {refused && <Notice status="error" title="The server refused this target">{refused}</Notice>}
      {otherErrors(field.errors, ['name', 'members']).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root required invalid={!!problem}>
        <Field.Label>Moment to restore to</Field.Label>
        <Input
          type="datetime-local"
          step={1}
          autoFocus
          value={time}
          min={window.earliest ? toLocalInput(new Date(window.earliest)) : undefined}
          max={window.latest ? toLocalInput(new Date(window.latest)) : undefined}
          onChange={(event) => {
            setChoice({ kind: 'time' });
            setTime(event.target.value);
          }}
        />
        {problem ? <Field.ErrorText>{problem}</Field.ErrorText> : <Field.HelperText aria-live="polite">{says}</Field.HelperText>}
      </Field.Root>
      <HStack role="group" aria-label="Quick picks" gap="2" wrap="wrap">
        {picks.map((quick) => (
          <Button
            key={quick.label}
            size="xs"
            variant={pressed(quick.choice) ? 'solid' : 'outline'}
            aria-pressed={pressed(quick.choice)}
            onClick={() => pick(quick.choice, quick.moment())}
          >
            {quick.label}
          </Button>
        ))}
      </HStack>
      {window.earliest && window.latest && (
        <Text fontSize="sm" color="fg.muted">
          The window reaches {windowText(window.earliest, window.latest)}.
        </Text>
      )}
      <NewInstanceNameField field={field} />
      <SelectField label="Members" value={members} options={pgMemberOptions} onChange={setMembers} errors={field.errors.members} />
      {members !== '1' && (
        <Text fontSize="sm" color="fg.muted">
          A cluster on Patroni: the first member takes the restored data and the others copy it. Its leader lock goes to the
          consensus store of {instance.name} when it is a cluster of the same group, else to a new 3-member etcd made with it.
        </Text>
      )}
      <RestorePlanView
        plan={asking ? plan.currentData : undefined}
        pending={planPending}
        error={asking && !planPending ? plan.error : undefined}
        lastDrill={window.lastDrill}
      />
    </DialogForm>
  );
}
