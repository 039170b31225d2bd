import { Field, Input } from '@chakra-ui/react';
import { useState } from 'react';
import { archiveTimeoutSeconds, recoveryWindowDays, type PitrSettings } from '../../../contracts/pitr';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { useSavePitrSettingsMutation } from './pitrApi';

const bounds = { archiveTimeoutSeconds, retentionDays: recoveryWindowDays } as const;
type Setting = keyof PitrSettings;

const texts: Record<Setting, { label: string; hint: string }> = {
  archiveTimeoutSeconds: {
    label: 'Archive timeout (seconds)',
    hint: `The longest a committed change waits before its WAL is archived: ${archiveTimeoutSeconds.min}–${archiveTimeoutSeconds.max}. Shorter loses less, archives more.`,
  },
  retentionDays: {
    label: 'Window (days)',
    hint: `How far back a restore can reach: ${recoveryWindowDays.min}–${recoveryWindowDays.max} days of backups and WAL are kept.`,
  },
};

const settings = Object.keys(texts) as Setting[];

const problemOf = (setting: Setting, text: string) => {
  const n = Number(text.trim());
  const { min, max } = bounds[setting];
  return text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max ? null : `A whole number from ${min} to ${max}.`;
};

/** How often WAL is archived at the latest and how long the window reaches back. */
export function PitrSettingsForm({ instanceId, current, onDone }: { instanceId: string; current: PitrSettings; onDone: () => void }) {
  const [draft, setDraft] = useState<Record<Setting, string>>({
    archiveTimeoutSeconds: String(current.archiveTimeoutSeconds),
    retentionDays: String(current.retentionDays),
  });
  const [save, { isLoading, error }] = useSavePitrSettingsMutation();
  const said = fieldErrors(error);
  const problems = Object.fromEntries(settings.map((setting) => [setting, problemOf(setting, draft[setting])])) as Record<Setting, string | null>;

  const submit = async () => {
    if (settings.some((setting) => problems[setting])) return;
    const { data } = await save({ instanceId, archiveTimeoutSeconds: Number(draft.archiveTimeoutSeconds), retentionDays: Number(draft.retentionDays) });
    if (data) onDone();
  };

  return (
    <DialogForm submitLabel="Save" busy={isLoading} onSubmit={() => void submit()}>
      {otherErrors(said, settings).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      {settings.map((setting, index) => {
        const errors = problems[setting] ? [problems[setting]] : said[setting];
        return (
          <Field.Root key={setting} required invalid={!!errors?.length}>
            <Field.Label>{texts[setting].label}</Field.Label>
            <Input
              autoFocus={index === 0}
              inputMode="numeric"
              autoComplete="off"
              value={draft[setting]}
              onChange={(event) => setDraft({ ...draft, [setting]: event.target.value })}
            />
            {errors?.length ? <Field.ErrorText>{errors.join(' ')}</Field.ErrorText> : <Field.HelperText>{texts[setting].hint}</Field.HelperText>}
          </Field.Root>
        );
      })}
    </DialogForm>
  );
}
