import { Field, Input } from '@chakra-ui/react';
import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { useState, type ReactNode } from 'react';
import { errorStatus, problemText } from '../../api/problemText';
import { fieldErrors, otherErrors, type FieldErrors } from '../../components/fieldErrors';
import { DialogForm } from '../../components/FormDialog';
import { Notice } from '../../components/Notice';
import { nameHint, useNameCheck, type NameCheck } from './useNameCheck';

type RequestError = FetchBaseQueryError | SerializedError | undefined;

export interface NewInstanceName {
  name: string;
  setName: (name: string) => void;
  check: NameCheck;
  /** The request's complaints by field; `name` holds what the field shows now. */
  errors: FieldErrors;
  /** Marks the form submitted (an empty name is then a problem) and answers whether the name may be sent. */
  submit: () => boolean;
}

/**
 * The name of an instance made from another one (a clone, a restore): the rules checked as it is
 * typed, and the server's word on the name it was sent while it is still the one in the field.
 */
export function useNewInstanceName(error: RequestError, sentName: string | undefined): NewInstanceName {
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const check = useNameCheck(name);

  // A 409 is a name another instance took meanwhile.
  const said = errorStatus(error) === 409 ? { name: [problemText(error) ?? 'Another instance has this name.'] } : fieldErrors(error);
  const problem = check.problem ?? (submitted && name === '' ? 'Give the new instance a name.' : null);
  const errors = { ...said, name: problem ? [problem] : sentName === name ? said.name : undefined };

  const submit = () => {
    setSubmitted(true);
    return name !== '' && !check.problem;
  };
  return { name, setName, check, errors, submit };
}

/** The new instance's name field, with what is wrong with the name or the progress of its check below it. */
export function NewInstanceNameField({ field, autoFocus = false }: { field: NewInstanceName; autoFocus?: boolean }) {
  const nameErrors = field.errors.name;
  return (
    <Field.Root required invalid={!!nameErrors?.length}>
      <Field.Label>New instance name</Field.Label>
      <Input
        autoFocus={autoFocus}
        autoComplete="off"
        spellCheck={false}
        maxLength={40}
        value={field.name}
        onChange={(event) => field.setName(event.target.value)}
      />
      {nameErrors?.length ? (
        <Field.ErrorText>{nameErrors.join(' ')}</Field.ErrorText>
      ) : (
        <Field.HelperText aria-live="polite">{nameHint(field.check)}</Field.HelperText>
      )}
    </Field.Root>
  );
}

interface NewInstanceNameFormProps {
  /** What the new instance will be, above the name. */
  intro: ReactNode;
  submitLabel: string;
  /** The request's state: the server's word on the name holds for the name it was sent. */
  busy: boolean;
  error: RequestError;
  sentName: string | undefined;
  /** Fields of the request besides the name, whose complaints are not the person's to fix. */
  otherFields?: string[];
  /** Fields of the form below the name; given the server's complaints, by field. */
  children?: (errors: Record<string, string[] | undefined>) => ReactNode;
  onSubmit: (name: string) => void;
}

/**
 * A dialog form that makes a new instance from an existing one (a clone, a restored backup):
 * only its name is asked, with the rules checked as it is typed.
 */
export function NewInstanceNameForm({ intro, submitLabel, busy, error, sentName, otherFields = [], children, onSubmit }: NewInstanceNameFormProps) {
  const field = useNewInstanceName(error, sentName);

  const submit = () => {
    if (field.submit()) onSubmit(field.name);
  };

  return (
    <DialogForm submitLabel={submitLabel} busy={busy} onSubmit={submit}>
      {intro}
      {otherErrors(field.errors, ['name', ...otherFields]).map((message) => (
        <Notice key={message} status="error" title={message} />
      ))}
      <NewInstanceNameField field={field} autoFocus />
      {children?.(field.errors)}
    </DialogForm>
  );
}
