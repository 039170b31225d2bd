import { Code, Heading, List, RadioGroup, Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { DialogForm } from '../../components/FormDialog';
import type { ApplyChoice } from './configApi';
import { inUnit } from '../../../contracts/parameterUnits';
import type { Change } from './configDraft';

const labels: Record<ApplyChoice, string> = {
  none: 'Save only',
  reload: 'Save and reload',
  restart: 'Save and restart',
};

function ChangeList({ title, changes }: { title: string; changes: Change[] }) {
  if (changes.length === 0) return null;
  return (
    <Stack as="section" gap="2" aria-label={title}>
      <Heading as="h3" size="sm">
        {title} ({changes.length})
      </Heading>
      <List.Root gap="1" ps="4">
        {changes.map(({ name, from, to, unit }) => (
          <List.Item key={name}>
            <Code>{name}</Code>: {inUnit(from, unit)} → {inUnit(to, unit)}
          </List.Item>
        ))}
      </List.Root>
    </Stack>
  );
}

interface ReviewChangesFormProps {
  changes: Change[];
  busy: boolean;
  onSave: (apply: ApplyChoice) => void;
}

/**
 * The diff before a save, by how each change takes effect, and what to do after saving. Applying
 * right away is the default: a reload when every change allows it, else a restart.
 */
export function ReviewChangesForm({ changes, busy, onSave }: ReviewChangesFormProps) {
  const reload = changes.filter((change) => change.apply === 'reload');
  const restart = changes.filter((change) => change.apply === 'restart');
  const choices: ApplyChoice[] = ['none', ...(reload.length > 0 ? (['reload'] as const) : []), ...(restart.length > 0 ? (['restart'] as const) : [])];
  const [apply, setApply] = useState<ApplyChoice>(restart.length > 0 ? 'restart' : 'reload');

  const outcome: Record<ApplyChoice, string> = {
    none: 'Nothing changes in the running instance until its next reload or restart.',
    reload:
      restart.length > 0
        ? 'The reload changes take effect now, without dropping connections; the others wait for a restart.'
        : 'Every change takes effect now, without dropping connections.',
    restart: 'Every change takes effect; connections drop while the instance restarts.',
  };

  return (
    <DialogForm submitLabel={labels[apply]} busy={busy} onSubmit={() => onSave(apply)}>
      <ChangeList title="Applied by a reload" changes={reload} />
      <ChangeList title="Need a restart" changes={restart} />
      <RadioGroup.Root value={apply} onValueChange={({ value }) => setApply(value as ApplyChoice)}>
        <Stack gap="2">
          <RadioGroup.Label fontWeight="semibold">After saving</RadioGroup.Label>
          {choices.map((choice) => (
            <RadioGroup.Item key={choice} value={choice}>
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>{labels[choice]}</RadioGroup.ItemText>
            </RadioGroup.Item>
          ))}
        </Stack>
      </RadioGroup.Root>
      <Text color="fg.muted" fontSize="sm" aria-live="polite">
        {outcome[apply]}
      </Text>
    </DialogForm>
  );
}
