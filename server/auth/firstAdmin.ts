import type { Config } from '../config';
import type { Db } from '../db/schema';
import * as users from '../db/users';
import { generatePassword } from './passwordRules';

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
  const password = config.adminPassword ?? generatePassword();
  const admin = await users.createUser(db, { email: config.adminEmail, password, role: 'admin', emailConfirmed: true }, now);
  return { email: admin.email, password, generated: config.adminPassword === undefined };
}
