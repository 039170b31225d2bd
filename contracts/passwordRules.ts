// Identity's password rules (DESIGN §7), with the error code each failure is keyed by. Free of
// TypeBox, so the browser may import it as a value to show the rules as someone types.

export const passwordRules = [
  { code: 'PasswordTooShort', text: 'At least 8 characters', met: (password: string) => password.length >= 8 },
  { code: 'PasswordRequiresDigit', text: 'A digit (0–9)', met: (password: string) => /\d/.test(password) },
  { code: 'PasswordRequiresLower', text: 'A lowercase letter (a–z)', met: (password: string) => /[a-z]/.test(password) },
  { code: 'PasswordRequiresUpper', text: 'An uppercase letter (A–Z)', met: (password: string) => /[A-Z]/.test(password) },
  {
    code: 'PasswordRequiresNonAlphanumeric',
    text: 'A symbol (not a letter or digit)',
    met: (password: string) => /[^a-zA-Z0-9]/.test(password),
  },
] as const;

export type PasswordRuleCode = (typeof passwordRules)[number]['code'];
