import { Field, Input } from '@chakra-ui/react';
import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { useState, type ReactNode } from 'react';
import { errorStatus, problemText } from '../../api/problemText';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { nameHint, useNameCheck } from './useNameCheck';

interface NewInstanceNameFormProps {
  /** What the new instance will be, above the name. */
  intro: ReactNode;
  submitLabel: string;
  /** The request's state: the server's word on the name holds for the name it was sent. */
  busy: boolean;
  error: FetchBaseQueryError | SerializedError | undefined;
  sentName: string | undefined;
  /** Fields of the request besides the name, whose complaints are not the person's to fix. */
  otherFields?: string[];
  onSubmit: (name: string) => void;
}

/**
 * A dialog form that makes a new instance from an existing one (a clone, a restored backup):
 * only its name is asked, with the rules checked as it is typed.
 */
export function NewInstanceNameForm({ intro, submitLabel, busy, error, sentName, otherFields = [], onSubmit }: NewInstanceNameFormProps) {
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const check = useNameCheck(name);

  // A 409 is a name another instance took meanwhile.
  const errors = errorStatus(error) === 409 ? { name: [problemText(error) ?? 'Another instance has this name.'] } : fieldErrors(error);
  const problem = check.problem ?? (submitted && name === '' ? 'Give the new instance a name.' : null);
  const nameErrors = problem ? [problem] : sentName === name ? errors.name : undefined;

  const submit = () => {
    setSubmitted(true);
    if (name !== '' && !check.problem) onSubmit(name);
  };

  return (
    <DialogForm submitLabel={submitLabel} busy={busy} onSubmit={submit}>
      {intro}
      {otherErrors(errors, ['name', ...otherFields]).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <Field.Root required invalid={!!nameErrors?.length}>
        <Field.Label>New instance name</Field.Label>
        <Input autoFocus autoComplete="off" spellCheck={false} maxLength={40} value={name} onChange={(event) => setName(event.target.value)} />
        {nameErrors?.length ? (
          <Field.ErrorText>{nameErrors.join(' ')}</Field.ErrorText>
        ) : (
          <Field.HelperText aria-live="polite">{nameHint(check)}</Field.HelperText>
        )}
      </Field.Root>
    </DialogForm>
  );
}
