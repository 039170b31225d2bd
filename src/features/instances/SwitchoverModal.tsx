import { Button, Checkbox, HStack, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { formatBytes } from '../../../contracts/backupValues';
import type { InstanceMember } from '../../../contracts/instances';
import { Notice } from '../../components/Notice';
import { SelectField } from '../../components/SelectField';
import type { ModalBodyProps } from '../ui/modalBody';

/** The replicas that may take the lead: running ones, the synchronous standby first (it has every commit), then the least behind. */
export function switchoverCandidates(members: readonly InstanceMember[]): InstanceMember[] {
  return members
    .filter((m) => m.role !== 'leader' && m.state === 'running')
    .sort((a, b) => Number(b.role === 'sync_standby') - Number(a.role === 'sync_standby') || (a.lagBytes ?? Infinity) - (b.lagBytes ?? Infinity));
}

export interface SwitchoverChoice {
  candidate: number;
  force: boolean;
}

export interface SwitchoverModalProps extends SwitchoverChoice {
  candidates: { ordinal: number; label: string }[];
  /** The server's refusal of the last choice (a member that leads already, one that lags). */
  problem?: string;
}

export const isSwitchoverChoice = (value: unknown): value is SwitchoverChoice =>
  typeof value === 'object' && value !== null && 'candidate' in value && 'force' in value;

/** How a candidate reads in the list: what makes one a better choice than another. */
export const candidateLabel = (m: InstanceMember) =>
  `Member ${m.ordinal}: ${m.role === 'sync_standby' ? 'sync standby' : 'replica'}, ${m.lagBytes === null ? 'lag not known' : `${formatBytes(m.lagBytes)} behind`}`;

/** Which replica leads next, and whether one that lags may all the same; closes with the choice or false. */
export function SwitchoverModal({ props, close }: ModalBodyProps<SwitchoverModalProps>) {
  const [candidate, setCandidate] = useState(props.candidate);
  const [force, setForce] = useState(props.force);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    close({ candidate, force } satisfies SwitchoverChoice);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="4" pt="2">
        {props.problem && <Notice status="error" title={props.problem} />}
        <SelectField
          label="New leader"
          value={String(candidate)}
          options={props.candidates.map((c) => ({ value: String(c.ordinal), label: c.label }))}
          onChange={(value) => setCandidate(Number(value))}
        />
        <Checkbox.Root checked={force} onCheckedChange={({ checked }) => setForce(checked === true)}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>Force even if it lags</Checkbox.Label>
        </Checkbox.Root>
        <HStack justify="flex-end" gap="3">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit">Switch over</Button>
        </HStack>
      </Stack>
    </form>
  );
}
