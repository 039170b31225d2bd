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

const classes = ['abcdefghijkmnpqrstuvwxyz', 'ABCDEFGHJKLMNPQRSTUVWXYZ', '23456789', '!#%+-=?@^_~'];

/** A random password that meets the rules: one of each class, the rest from all, shuffled. */
export function generatePassword(length = 20): string {
  const all = classes.join('');
  const chars = classes.map(pick);
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

function pick(from: string): string {
  return from[randomInt(from.length)];
}
