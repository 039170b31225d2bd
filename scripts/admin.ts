import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { generatePassword } from '../server/auth/passwordRules';
import { databaseUrlProblem, loadConfig, type Config } from '../server/config';
import { setPassword } from '../server/db/adminUsers';
import { recordAudit } from '../server/db/audit';
import { copyStore } from '../server/db/copyStore';
import { clearAllFailures } from '../server/db/loginFailures';
import { migrateToLatest } from '../server/db/migrations';
import { openDb, storeFileName } from '../server/db/open';
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

/**
 * Moving to a PostgreSQL store: the embedded store of the data folder is copied into an empty
 * database, verified by row counts. The server keeps using the embedded store until the operator
 * sets WARDEN_DATABASE_URL; `print` gets each line of progress.
 */
async function migrateStore(to: string, config: Config, print: (line: string) => void): Promise<void> {
  const target = storeUrl(to);
  const shown = masked(target);
  if (config.databaseUrl && sameDatabase(storeUrl(config.databaseUrl), target)) {
    throw new Error(`WARDEN_DATABASE_URL already names ${shown}: this command copies the embedded store into it. Unset WARDEN_DATABASE_URL to run it.`);
  }
  const file = path.join(config.dataDir, storeFileName);
  // openDb would make an empty store where none is, and an empty copy would look like success.
  if (!fs.existsSync(file)) throw new Error(`There is no embedded store at ${file}: set WARDEN_DATA_DIR to the data folder of the Warden server to move.`);
  const from = openDb({ dataDir: config.dataDir });
  const into = openDb({ dataDir: config.dataDir, databaseUrl: to });
  try {
    const copied = await copyStore(from, into, (table, rows) => print(`${table}: ${rowCount(rows)}`)).catch((error: unknown) => {
      // The copy is one transaction: whatever failed, the target holds none of it.
      throw new Error(`Nothing was copied: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    const rows = copied.reduce((sum, table) => sum + table.rows, 0);
    print(`Copied ${rowCount(rows)} in ${copied.length} tables to ${shown}; counts verified.`);
    print(`Next: set WARDEN_DATABASE_URL=${shown} (with its password) for every Warden server, and start them.`);
  } finally {
    await Promise.all([from.destroy(), into.destroy()]);
  }
}

const rowCount = (rows: number) => `${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'}`;

/** A postgres:// or postgresql:// address with a host and a database. The message never holds the address: it may carry a password. */
function storeUrl(raw: string): URL {
  const problem = databaseUrlProblem(raw);
  if (problem) throw new Error(`--to must be postgres://user:password@host:port/database (${problem}).`);
  return new URL(raw);
}

/** The address as it may be printed: the password replaced by ***. */
function masked(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href;
}

/** The same server and database, however the two addresses spell them. */
function sameDatabase(a: URL, b: URL): boolean {
  const where = (url: URL) => `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  return where(a) === where(b);
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
  program
    .command('migrate-store')
    .requiredOption('--to <url>', 'an empty PostgreSQL database: postgres://user:password@host:port/database')
    .description('Copy the embedded store of WARDEN_DATA_DIR into PostgreSQL once, verified by row counts. Stop every Warden server first.')
    .action(async ({ to }: { to: string }) => {
      await migrateStore(to, loadConfig(process.env), (line) => process.stdout.write(`${line}\n`));
    });
  await program.parseAsync(argv);
}

if (require.main === module) {
  main(process.argv).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
