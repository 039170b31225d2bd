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
