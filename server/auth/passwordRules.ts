import { randomInt } from 'node:crypto';

// DESIGN §7 password rules; the codes are ASP.NET Core Identity's, which /auth/register reports.
export type PasswordError =
  | 'PasswordTooShort'
  | 'PasswordRequiresDigit'
  | 'PasswordRequiresLower'
  | 'PasswordRequiresUpper'
  | 'PasswordRequiresNonAlphanumeric';

export const minPasswordLength = 8;

export function passwordErrors(password: string): PasswordError[] {
  const errors: PasswordError[] = [];
  if (password.length < minPasswordLength) errors.push('PasswordTooShort');
  if (!/\d/.test(password)) errors.push('PasswordRequiresDigit');
  if (!/[a-z]/.test(password)) errors.push('PasswordRequiresLower');
  if (!/[A-Z]/.test(password)) errors.push('PasswordRequiresUpper');
  if (!/[^a-zA-Z0-9]/.test(password)) errors.push('PasswordRequiresNonAlphanumeric');
  return errors;
}

// Letters and digits only, so a generated password survives being pasted into a shell unquoted
// (`warden login`, a reset printed by the admin script); 24 of these 62 characters carry about 143
// bits. It is not held to the rules above, which stand in for the strength of a chosen password.
const generatedAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const generatedLength = 24;

/** A random password Warden makes up (the first admin's, an admin's reset): shown once, changed later. */
export function generatePassword(): string {
  return Array.from({ length: generatedLength }, () => generatedAlphabet[randomInt(generatedAlphabet.length)]).join('');
}
