import { hashPassword, verifyPassword } from '../../server/auth/passwords';
import { generatePassword, passwordErrors } from '../../server/auth/passwordRules';
import { hashToken, newToken } from '../../server/auth/tokens';

describe('password hashing', () => {
  it('stores a versioned, salted scrypt hash that verifies only the right password', async () => {
    const hash = await hashPassword('Correct-Horse-7');

    expect(hash).toMatch(/^scrypt\$1\$16384\$8\$1\$[\w+/=]+\$[\w+/=]+$/);
    expect(hash).not.toContain('Correct-Horse-7');
    await expect(verifyPassword('Correct-Horse-7', hash)).resolves.toBe(true);
    await expect(verifyPassword('correct-horse-7', hash)).resolves.toBe(false);
    expect(await hashPassword('Correct-Horse-7')).not.toBe(hash);
  });

  it('rejects hashes it does not understand', async () => {
    await expect(verifyPassword('x', 'plain-text')).resolves.toBe(false);
    await expect(verifyPassword('x', 'bcrypt$2$whatever')).resolves.toBe(false);
  });
});

describe('password rules', () => {
  it('names every rule a password breaks', () => {
    expect(passwordErrors('short')).toEqual([
      'PasswordTooShort',
      'PasswordRequiresDigit',
      'PasswordRequiresUpper',
      'PasswordRequiresNonAlphanumeric',
    ]);
    expect(passwordErrors('ALLUPPER1!')).toEqual(['PasswordRequiresLower']);
    expect(passwordErrors('Correct-Horse-7')).toEqual([]);
  });

  it('generates passwords of letters and digits only, which a shell takes unquoted, with about 143 bits', () => {
    const passwords = Array.from({ length: 200 }, generatePassword);
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(new Set(passwords).size).toBe(passwords.length);
    // All 62 turn up: the alphabet is not a narrower one (ambiguous characters left out, say).
    expect(new Set(passwords.join('')).size).toBe(62);
  });
});

describe('tokens', () => {
  it('are 32 random bytes in base64url, stored as their sha256', () => {
    const token = newToken();

    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(newToken()).not.toBe(token);
  });
});
