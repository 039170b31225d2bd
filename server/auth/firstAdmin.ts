import { randomInt } from 'node:crypto';
import type { Config } from '../config';
import type { Db } from '../db/schema';
import * as users from '../db/users';

// Letters and digits only, so the password survives being pasted into a shell unquoted; 24 of
// these 62 characters carry about 143 bits, more than the 121 of the 20 with symbols before.
const passwordAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const generatedPasswordLength = 24;

/** The first admin's password when the operator gave none: shown once, changed by them later. */
export function generateFirstAdminPassword(): string {
  return Array.from({ length: generatedPasswordLength }, () => passwordAlphabet[randomInt(passwordAlphabet.length)]).join('');
}

export interface FirstAdmin {
  email: string;
  password: string;
  /** True when Warden made the password up, so it must be shown to the operator once. */
  generated: boolean;
}

/**
 * On an empty store, creates the first admin from WARDEN_ADMIN_EMAIL / WARDEN_ADMIN_PASSWORD (or a
 * generated password). Answers what it created, or null when users already exist.
 */
export async function ensureFirstAdmin(
  db: Db,
  config: Pick<Config, 'adminEmail' | 'adminPassword'>,
  now: Date = new Date(),
): Promise<FirstAdmin | null> {
  if ((await users.countUsers(db)) > 0) return null;
  const password = config.adminPassword ?? generateFirstAdminPassword();
  const admin = await users.createUser(db, { email: config.adminEmail, password, role: 'admin', emailConfirmed: true }, now);
  return { email: admin.email, password, generated: config.adminPassword === undefined };
}
