import { Command } from 'commander';
import { generatePassword } from '../server/auth/passwordRules';
import { loadConfig } from '../server/config';
import { setPassword } from '../server/db/adminUsers';
import { recordAudit } from '../server/db/audit';
import { clearAllFailures } from '../server/db/loginFailures';
import { migrateToLatest } from '../server/db/migrations';
import { openDb } from '../server/db/open';
import type { Db } from '../server/db/schema';
import { deleteUserSessions } from '../server/db/sessions';
import { findByEmail } from '../server/db/users';

/**
 * Access recovery without e-mail: the operator, on the server's machine (the store is a file only
 * root and Warden read), gives an account a new generated password. Every session of the account
 * ends and any lockout is lifted; the change is audited as done from the command line.
 */
export async function resetPassword(db: Db, email: string, now = new Date()): Promise<string> {
  const user = await findByEmail(db, email);
  if (!user) throw new Error(`No account has the e-mail ${email}.`);
  const password = generatePassword();
  await setPassword(db, user.id, password);
  await clearAllFailures(db, user.id, now);
  const sessionsEnded = (await deleteUserSessions(db, user.id)).length;
  await recordAudit(db, {
    at: now,
    userId: null,
    action: 'admin.cli.reset-password',
    target: user.id,
    outcome: 'success',
    detail: { email: user.email, sessionsEnded },
    ip: null,
  });
  return password;
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('admin').description('Warden administration on the server machine (uses WARDEN_DATA_DIR like the server).');
  program
    .command('reset-password')
    .argument('<email>', "the account's e-mail")
    .description('Give an account a new generated password, end its sessions and lift its lockout; prints the password once.')
    .action(async (email: string) => {
      const db = openDb(loadConfig(process.env));
      try {
        await migrateToLatest(db);
        const password = await resetPassword(db, email);
        process.stdout.write(`New password for ${email}: ${password}\nSign in with it and change it on the Profile page.\n`);
      } finally {
        await db.destroy();
      }
    });
  await program.parseAsync(argv);
}

if (require.main === module) {
  main(process.argv).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
