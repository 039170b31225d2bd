import { Button, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { processLimitBounds, type Group, type GroupLimits } from '../../../contracts/groups';
import { otherErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { groupFormErrors } from './groupFormErrors';
import { useUpdateGroupMutation } from './groupsApi';
import { parseLimit } from './parseLimit';

// Memory is typed in mebibytes and sent in bytes.
const mebibyte = 1024 ** 2;

type LimitName = keyof GroupLimits;

/** Each limit: its field's label, the unit the field is typed in, and how the group's value reads. */
const limits: { name: LimitName; label: string; unit: number; reads: (value: number | null) => string }[] = [
  {
    name: 'maxProcesses',
    label: 'Most processes',
    unit: 1,
    reads: (value) => `Up to ${value?.toLocaleString('en')} processes`,
  },
  {
    name: 'maxOpenFiles',
    label: 'Most open files per process',
    unit: 1,
    reads: (value) => `Up to ${value?.toLocaleString('en')} open files per process`,
  },
  {
    name: 'maxMemoryBytes',
    label: 'Most memory per process (MiB)',
    unit: mebibyte,
    reads: (value) => (value === null ? 'No memory limit per process' : `Up to ${(value / mebibyte).toLocaleString('en')} MiB of memory per process`),
  },
];

/** A value in its field's unit, e.g. 536870912 bytes → "512". */
const inUnit = (value: number | null, unit: number) => (value === null ? '' : String(value / unit));

/**
 * The process limits of each of the group's instances: what they are, for everyone who sees the
 * group; three fields to change them, for admins. Mount it keyed by the saved limits, so the fields
 * start from them.
 */
export function ProcessLimitsSection({ group, canEdit }: { group: Group; canEdit: boolean }) {
  const [updateGroup, { isLoading, error }] = useUpdateGroupMutation();
  const [text, setText] = useState(() =>
    Object.fromEntries(limits.map(({ name, unit }) => [name, inUnit(group.limits[name], unit)])) as Record<LimitName, string>,
  );
  const [touched, setTouched] = useState(false);

  const parsed = Object.fromEntries(
    limits.map(({ name, unit }) => {
      const bounds = processLimitBounds[name];
      return [name, parseLimit(text[name], { whole: unit === 1, min: bounds.min / unit, max: bounds.max / unit, empty: 'the default' })];
    }),
  ) as Record<LimitName, ReturnType<typeof parseLimit>>;
  const localError = (name: LimitName) => {
    const result = parsed[name];
    return 'error' in result ? result.error : undefined;
  };
  const invalid = limits.some(({ name }) => localError(name));
  const serverErrors = groupFormErrors(error);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if (invalid) return;
    const sent = Object.fromEntries(
      limits.map(({ name, unit }) => {
        const result = parsed[name];
        return [name, 'value' in result && result.value !== null ? Math.round(result.value * unit) : null];
      }),
    ) as GroupLimits;
    updateGroup({ groupId: group.id, name: group.name, limits: sent });
  };

  return (
    <Section
      title="Process limits"
      description="Limits on every process of the group's instances. Empty is the server's default. A running instance takes new limits at its next restart."
    >
      <Stack gap="1">
        {limits.map(({ name, reads }) => (
          <Text key={name}>
            {group.limits[name] === null ? `${reads(group.defaultLimits[name])} (default)` : reads(group.limits[name])}
          </Text>
        ))}
      </Stack>
      {canEdit && (
        <form onSubmit={submit} aria-busy={isLoading} noValidate>
          <Stack gap="4" maxW="lg">
            {otherErrors(
              serverErrors,
              limits.map(({ name }) => `limits.${name}`),
            ).map((message) => (
              <Notice key={message} status="error" title={message} />
            ))}
            {limits.map(({ name, label, unit }) => {
              const errors = [...(touched && localError(name) ? [localError(name)!] : []), ...(serverErrors[`limits.${name}`] ?? [])];
              const fallback = group.defaultLimits[name];
              return (
                <Field.Root key={name} invalid={errors.length > 0}>
                  <Field.Label>{label}</Field.Label>
                  <Input
                    inputMode={unit === 1 ? 'numeric' : 'decimal'}
                    placeholder={fallback === null ? 'default: none' : `default ${(fallback / unit).toLocaleString('en')}`}
                    value={text[name]}
                    onChange={(event) => setText({ ...text, [name]: event.target.value })}
                  />
                  {errors.length > 0 && <Field.ErrorText>{errors.join(' ')}</Field.ErrorText>}
                </Field.Root>
              );
            })}
            <HStack>
              <Button type="submit" loading={isLoading} disabled={touched && invalid}>
                Save limits
              </Button>
            </HStack>
          </Stack>
        </form>
      )}
    </Section>
  );
}
