import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { LoginFailure } from '../../../contracts/auth';
import { errorStatus, problemOf } from '../../api/problemText';

// Keyed by the contract's type, so a new failure kind fails the type check until it has words.
const messages: Record<LoginFailure, string> = {
  Failed: 'Wrong e-mail or password.',
  RequiresTwoFactor: 'Enter the 6-digit code from your authenticator app.',
  LockedOut: 'Too many failed attempts. The account is locked for 5 minutes.',
  NotAllowed: 'This account is disabled.',
};

/** The reason a sign-in was refused (the 401 problem's detail), if that is what happened. */
export function loginFailureOf(error: unknown): LoginFailure | undefined {
  const failed = error as FetchBaseQueryError;
  if (errorStatus(failed) !== 401) return undefined;
  const detail = problemOf(failed)?.detail;
  return detail && Object.hasOwn(messages, detail) ? (detail as LoginFailure) : undefined;
}

/** What the login page says about a refused sign-in; a wrong code on the second step is not a wrong password. */
export function loginFailureMessage(failure: LoginFailure, step: 'credentials' | 'twoFactor' | 'recovery'): string {
  if (failure === 'Failed' && step === 'twoFactor') return 'Wrong authentication code.';
  if (failure === 'Failed' && step === 'recovery') return 'Wrong or already used recovery code.';
  return messages[failure];
}
