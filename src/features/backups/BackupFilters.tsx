import { Field, Input } from '@chakra-ui/react';
import { backupKinds, backupStatuses, backupTriggers } from '../../../contracts/backupValues';
import { SelectField, type Option } from '../../components/SelectField';
import { kindLabels, statusLooks, triggerLabels } from './backupLabels';

export type BackupFilterName = 'status' | 'trigger' | 'kind' | 'from' | 'to';

const choices: Record<'status' | 'trigger' | 'kind', { label: string; options: Option[] }> = {
  status: {
    label: 'Status',
    options: [{ value: '', label: 'Any status' }, ...backupStatuses.map((status) => ({ value: status, label: statusLooks[status].label }))],
  },
  trigger: {
    label: 'Trigger',
    options: [{ value: '', label: 'Any trigger' }, ...backupTriggers.map((trigger) => ({ value: trigger, label: triggerLabels[trigger] }))],
  },
  kind: {
    label: 'Kind',
    options: [{ value: '', label: 'Any kind' }, ...backupKinds.map((kind) => ({ value: kind, label: kindLabels[kind] }))],
  },
};

const dayLabels = { from: 'Started from', to: 'Started until' };

interface BackupFiltersProps<Name extends BackupFilterName> {
  fields: readonly Name[];
  values: Partial<Record<Name, string>>;
  onChange: (name: Name, value: string | undefined) => void;
}

/** The filters above a backup list; the days are the person's local days, kept in the URL as YYYY-MM-DD. */
export function BackupFilters<Name extends BackupFilterName>({ fields, values, onChange }: BackupFiltersProps<Name>) {
  return (
    <>
      {fields.map((name) => {
        const value = values[name] ?? '';
        if (name === 'from' || name === 'to') {
          return (
            <Field.Root key={name} w="44">
              <Field.Label>{dayLabels[name as keyof typeof dayLabels]}</Field.Label>
              <Input type="date" value={value} onChange={(event) => onChange(name, event.target.value || undefined)} />
            </Field.Root>
          );
        }
        const { label, options } = choices[name as keyof typeof choices];
        return <SelectField key={name} label={label} width="40" value={value} options={options} onChange={(chosen) => onChange(name, chosen || undefined)} />;
      })}
    </>
  );
}

const isDay = (text: string | undefined): text is string => !!text && /^\d{4}-\d{2}-\d{2}$/.test(text);

function instant(local: string): string | undefined {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The URL's days as the API's instants: from the start of the first day to the end of the last, in local time. */
export function rangeArgs({ from, to }: { from?: string; to?: string }): { from?: string; to?: string } {
  return {
    from: isDay(from) ? instant(`${from}T00:00:00`) : undefined,
    to: isDay(to) ? instant(`${to}T23:59:59.999`) : undefined,
  };
}
