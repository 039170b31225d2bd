import { validationProblem, type HttpProblem } from '../http/problems';
import type { PasswordError } from './passwordRules';

// ASP.NET Core Identity answers a failed operation with a 400 whose `errors` are keyed by its error
// codes; these are its codes with its messages.

export type IdentityErrorCode =
  | PasswordError
  | 'InvalidEmail'
  | 'DuplicateEmail'
  | 'PasswordMismatch'
  | 'OldPasswordRequired'
  | 'InvalidToken';

const messages: Record<IdentityErrorCode, (email: string) => string> = {
  PasswordTooShort: () => 'Passwords must be at least 8 characters.',
  PasswordRequiresDigit: () => "Passwords must have at least one digit ('0'-'9').",
  PasswordRequiresLower: () => "Passwords must have at least one lowercase ('a'-'z').",
  PasswordRequiresUpper: () => "Passwords must have at least one uppercase ('A'-'Z').",
  PasswordRequiresNonAlphanumeric: () => 'Passwords must have at least one non alphanumeric character.',
  InvalidEmail: (email) => `Email '${email}' is invalid.`,
  DuplicateEmail: (email) => `Email '${email}' is already taken.`,
  PasswordMismatch: () => 'Incorrect password.',
  OldPasswordRequired: () =>
    'The old password is required to set a new password. If the old password is forgotten, use /auth/resetPassword.',
  InvalidToken: () => 'Invalid token.',
};

/** `email` fills the messages that name the address. */
export function identityProblem(codes: readonly IdentityErrorCode[], email = ''): HttpProblem {
  return validationProblem(Object.fromEntries(codes.map((code) => [code, [messages[code](email)]])));
}
