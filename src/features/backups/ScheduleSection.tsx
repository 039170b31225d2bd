import { Button, Field, HStack, Input, List, Stack, Switch, Text } from '@chakra-ui/react';
import { useId, useState, type FormEvent } from 'react';
import type { BackupSchedule, UpdateScheduleRequest } from '../../../contracts/backups';
import { retentionLimits, type ScheduleMethod } from '../../../contracts/backupValues';
import { DateTime, formatDateTime } from '../../components/DateTime';
import { fieldErrors, otherErrors, type FieldErrors } from '../../components/fieldErrors';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { SelectField } from '../../components/SelectField';
import { useBackupScheduleQuery, useSaveBackupScheduleMutation } from './backupsApi';
import { RetentionPreviewResult, useRetentionPreview } from './RetentionPreview';

const fields = ['enabled', 'cron', 'timeZone', 'keepLast', 'keepDays'] as const;
type ScheduleField = (typeof fields)[number];

interface Draft {
  enabled: boolean;
  cron: string;
  timeZone: string;
  keepLast: string;
  keepDays: string;
  includeManual: boolean;
  method: ScheduleMethod;
}

const draftOf = (schedule: BackupSchedule): Draft => ({
  enabled: schedule.enabled,
  cron: schedule.cron,
  timeZone: schedule.timeZone,
  keepLast: schedule.keepLast?.toString() ?? '',
  keepDays: schedule.keepDays?.toString() ?? '',
  includeManual: schedule.includeManual,
  method: schedule.method,
});

const methodOptions = [
  { value: 'dump', label: 'A dump (pg_dump of every database)' },
  { value: 'physical', label: 'A physical backup for point-in-time recovery (full weekly, differential between)' },
];

/** A retention limit as typed: empty is no limit, else a whole number within the contract's bounds. */
function limitOf(text: string, max: number): { value: number | null; problem: string | null } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: null, problem: null };
  const n = Number(trimmed);
  if (!Number.isInteger(n) || n < 1 || n > max) return { value: null, problem: `A whole number from 1 to ${max}, or empty for no limit.` };
  return { value: n, problem: null };
}

/** The server's complaints about what it was sent, but those about a field changed since. */
function stillHeld(said: FieldErrors, sent: Partial<UpdateScheduleRequest> | undefined, now: UpdateScheduleRequest): FieldErrors {
  const isField = (key: string): key is ScheduleField => (fields as readonly string[]).includes(key);
  return Object.fromEntries(Object.entries(said).filter(([key]) => !isField(key) || sent?.[key] === now[key]));
}

// Browsers without Intl.supportedValuesOf get a text field. UTC is not in the IANA list itself.
const timeZones: string[] | null =
  typeof Intl.supportedValuesOf === 'function' ? [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])] : null;

function TimeZoneField({ value, onChange, errors }: { value: string; onChange: (zone: string) => void; errors?: string[] }) {
  if (!timeZones) {
    return (
      <Field.Root required invalid={!!errors?.length}>
        <Field.Label>Time zone</Field.Label>
        <Input autoComplete="off" spellCheck={false} value={value} onChange={(event) => onChange(event.target.value)} />
        {errors?.length ? <Field.ErrorText>{errors.join(' ')}</Field.ErrorText> : <Field.HelperText>An IANA time zone, e.g. Europe/Berlin.</Field.HelperText>}
      </Field.Root>
    );
  }
  // A zone this browser does not know stays choosable, so a save does not change it unasked.
  const zones = timeZones.includes(value) ? timeZones : [value, ...timeZones];
  return <SelectField label="Time zone" value={value} options={zones.map((zone) => ({ value: zone, label: zone }))} onChange={onChange} errors={errors} />;
}

function TextField({ label, value, onChange, errors, hint, numeric = false }: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  errors?: string[];
  hint: string;
  numeric?: boolean;
}) {
  return (
    <Field.Root invalid={!!errors?.length}>
      <Field.Label>{label}</Field.Label>
      <Input
        autoComplete="off"
        spellCheck={false}
        inputMode={numeric ? 'numeric' : undefined}
        fontFamily={numeric ? undefined : 'mono'}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      {errors?.length ? <Field.ErrorText>{errors.join(' ')}</Field.ErrorText> : <Field.HelperText>{hint}</Field.HelperText>}
    </Field.Root>
  );
}

function NextRuns({ schedule }: { schedule: BackupSchedule }) {
  const headingId = useId();
  if (!schedule.enabled || schedule.nextRuns.length === 0) {
    return <Text color="fg.muted">No backups are scheduled{schedule.enabled ? '' : ': the schedule is off'}.</Text>;
  }
  return (
    <Stack gap="1">
      <Text fontWeight="medium" id={headingId}>
        Next runs, in your time
      </Text>
      <List.Root aria-labelledby={headingId} ps="5">
        {schedule.nextRuns.map((run) => (
          <List.Item key={run}>
            <time dateTime={run}>{formatDateTime(run)}</time>
          </List.Item>
        ))}
      </List.Root>
    </Stack>
  );
}

/**
 * The schedule and retention as a form. What was typed stays until saved; the server's
 * complaints show beside the fields they are about, for as long as those still hold what was sent.
 */
function ScheduleForm({ instanceId, schedule, physical }: { instanceId: string; schedule: BackupSchedule; physical: boolean }) {
  const [draft, setDraft] = useState(() => draftOf(schedule));
  const [save, saving] = useSaveBackupScheduleMutation();
  const [previewShown, setPreviewShown] = useState(false);
  const change = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }));

  const keepLast = limitOf(draft.keepLast, retentionLimits.keepLastMax);
  const keepDays = limitOf(draft.keepDays, retentionLimits.keepDaysMax);
  const request: UpdateScheduleRequest = {
    enabled: draft.enabled,
    cron: draft.cron.trim(),
    timeZone: draft.timeZone.trim(),
    keepLast: keepLast.value,
    keepDays: keepDays.value,
    includeManual: draft.includeManual,
    method: draft.method,
  };
  const local: FieldErrors = {
    ...(request.cron === '' && { cron: ['Give a cron expression, e.g. 0 3 * * *.'] }),
    ...(request.timeZone === '' && { timeZone: ['Give a time zone.'] }),
    ...(keepLast.problem && { keepLast: [keepLast.problem] }),
    ...(keepDays.problem && { keepDays: [keepDays.problem] }),
  };
  const retentionOk = !local.keepLast && !local.keepDays;
  // Once shown, the preview follows the limits being edited (and, once saved, the saved ones).
  const preview = useRetentionPreview(instanceId, previewShown && retentionOk ? request : null);
  const server = {
    ...stillHeld(fieldErrors(preview.error), preview.originalArgs, request),
    ...stillHeld(fieldErrors(saving.error), saving.originalArgs, request),
  };
  const errorsOf = (field: ScheduleField) => local[field] ?? server[field];

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (Object.keys(local).length === 0) void save({ instanceId, ...request });
  };

  return (
    <form onSubmit={submit} aria-busy={saving.isLoading} noValidate>
      <Stack gap="5">
        {otherErrors(server, fields).map((message) => (
          <Notice key={message} status="error" title={message} />
        ))}
        <Switch.Root checked={draft.enabled} onCheckedChange={({ checked }) => change({ enabled: checked })}>
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Take backups on this schedule</Switch.Label>
        </Switch.Root>
        <HStack gap="4" align="start" wrap="wrap">
          <TextField
            label="Cron"
            value={draft.cron}
            onChange={(cron) => change({ cron })}
            errors={errorsOf('cron')}
            hint="Minute hour day-of-month month day-of-week, e.g. 0 3 * * * for 03:00 daily."
          />
          <TimeZoneField value={draft.timeZone} onChange={(timeZone) => change({ timeZone })} errors={errorsOf('timeZone')} />
        </HStack>
        {(physical || draft.method === 'physical') && (
          <SelectField label="Each run takes" value={draft.method} options={methodOptions} onChange={(method) => change({ method: method as ScheduleMethod })} />
        )}
        <HStack gap="4" align="start" wrap="wrap">
          <TextField
            label="Keep the last N backups"
            numeric
            value={draft.keepLast}
            onChange={(value) => change({ keepLast: value })}
            errors={errorsOf('keepLast')}
            hint="Empty: no limit by count."
          />
          <TextField
            label="Keep backups for D days"
            numeric
            value={draft.keepDays}
            onChange={(value) => change({ keepDays: value })}
            errors={errorsOf('keepDays')}
            hint="Empty: no limit by age."
          />
        </HStack>
        {/* Pinned backups are never deleted, whichever is chosen here. */}
        <Switch.Root checked={draft.includeManual} onCheckedChange={({ checked }) => change({ includeManual: checked })}>
          <Switch.HiddenInput />
          <Switch.Control />
          <Switch.Label>Apply the limits to manual backups too (otherwise only scheduled backups are deleted)</Switch.Label>
        </Switch.Root>
        <HStack gap="3">
          <Button type="submit" loading={saving.isLoading}>
            Save
          </Button>
          <Button variant="outline" disabled={!previewShown && !retentionOk} onClick={() => setPreviewShown(!previewShown)}>
            {previewShown ? 'Hide preview' : 'Preview retention'}
          </Button>
        </HStack>
        {preview.wanted && (preview.data || !preview.isError) && <RetentionPreviewResult preview={preview.data} updating={preview.updating} />}
        <NextRuns schedule={schedule} />
        {schedule.lastRunAt && (
          <Text color="fg.muted" fontSize="sm">
            Last scheduled run: <DateTime value={schedule.lastRunAt} />
          </Text>
        )}
      </Stack>
    </form>
  );
}

/**
 * When database backups are taken on their own, and how many of them are kept. `physical`: the
 * instance may take physical backups (a pg instance), so a run may take one instead of a dump.
 */
export function ScheduleSection({ instanceId, physical = false }: { instanceId: string; physical?: boolean }) {
  const schedule = useBackupScheduleQuery(instanceId);
  return (
    <Section
      title="Schedule and retention"
      description="Backups beyond the retention limits are deleted; preview what a policy would delete before saving it."
    >
      {schedule.isLoading ? (
        <LoadingState label="Loading the schedule…" />
      ) : schedule.data ? (
        <ScheduleForm instanceId={instanceId} schedule={schedule.data} physical={physical} />
      ) : (
        <ErrorState title="Could not load the schedule." onRetry={schedule.refetch} />
      )}
    </Section>
  );
}
