import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import { passwordRules } from '../../contracts/passwordRules';
import { problemOf } from '../api/problemText';

export type FieldErrors = Partial<Record<string, string[]>>;

const emailCodes = new Set(['InvalidEmail', 'DuplicateEmail', 'InvalidUserName', 'DuplicateUserName', 'newEmail']);

/**
 * The form field an error key of a 400 problem belongs to. Identity keys its errors by code
 * (PasswordTooShort, DuplicateEmail …), schema validation by field name. Every form calls its
 * new-password field `password`.
 */
function fieldOf(key: string): string {
  if (key === 'PasswordMismatch' || key === 'OldPasswordRequired') return 'oldPassword';
  if (key.startsWith('Password') || key === 'newPassword') return 'password';
  if (emailCodes.has(key)) return 'email';
  return key;
}

/** A failed call's validation errors by form field, to show beside the fields; no toast repeats them (apiErrorSaga). */
export function fieldErrors(error: FetchBaseQueryError | SerializedError | undefined): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, messages] of Object.entries(problemOf(error)?.errors ?? {})) {
    const rule = passwordRules.find((candidate) => candidate.code === key);
    const said = messages.length > 0 ? messages : [rule ? `Needs ${rule.text.toLowerCase()}.` : key];
    (errors[fieldOf(key)] ??= []).push(...said);
  }
  return errors;
}

/** The messages of the fields a form does not have: said above the form. */
export function otherErrors(errors: FieldErrors, fields: readonly string[]): string[] {
  return Object.entries(errors)
    .filter(([field]) => !fields.includes(field))
    .flatMap(([, messages]) => messages ?? []);
}
