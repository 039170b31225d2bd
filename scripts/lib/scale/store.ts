import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { logTail, Piece } from './piece';

/*
 * The scale example's store: PostgreSQL 15 in <dir>/store, run as Debian's `postgres` user (initdb
 * and postgres refuse root), on 127.0.0.1 with passwords (scram) for every role. The database
 * `warden` belongs to the servers' login role, which migrates it; each agent signs in with a login
 * role of its own, a member of `warden_agent`, which may read and write rows but change no table.
 * Every statement of that set-up is one of the small functions at the end.
 */

export const pgBinDir = '/usr/lib/postgresql/15/bin';
export const storeDatabase = 'warden';
export const serverRole = 'warden_server';
export const agentGroupRole = 'warden_agent';
export const agentRole = (n: number) => `warden_agent_${n}`;

export interface StorePasswords {
  superuser: string;
  server: string;
  /** One per agent, in order: agentRole(1), agentRole(2) … */
  agents: string[];
}

/** postgres://role:password@127.0.0.1:port/database */
export function storeUrl(port: number, role: string, password: string, database = storeDatabase): string {
  return `postgres://${role}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** initdb as `postgres` into `<storeDir>/data`, unless a cluster is there already. */
export function initStore(storeDir: string, superuserPassword: string, logFile: string): void {
  const data = path.join(storeDir, 'data');
  if (fs.existsSync(path.join(data, 'PG_VERSION'))) return;
  const user = postgresUser();
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  fs.chownSync(storeDir, user.uid, user.gid);
  const passwordFile = path.join(storeDir, 'superuser-password');
  fs.writeFileSync(passwordFile, `${superuserPassword}\n`, { mode: 0o600 });
  fs.chownSync(passwordFile, user.uid, user.gid);
  try {
    const initdb = spawnSync(
      path.join(pgBinDir, 'initdb'),
      ['-D', data, '-U', 'postgres', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8'],
      { cwd: storeDir, ...user, encoding: 'utf8' },
    );
    fs.appendFileSync(logFile, `${initdb.stdout ?? ''}${initdb.stderr ?? ''}`);
    if (initdb.status !== 0) {
      throw new Error(`store: initdb failed (${initdb.error?.message ?? `exit ${initdb.status}`}); the end of ${logFile}:\n${logTail(logFile)}`);
    }
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** The postmaster, in the foreground, ready once the superuser can run a query. */
export function storePiece(storeDir: string, port: number, superuserPassword: string, logFile: string): Piece {
  const superuserUrl = storeUrl(port, 'postgres', superuserPassword, 'postgres');
  return new Piece({
    name: 'store',
    command: path.join(pgBinDir, 'postgres'),
    args: ['-D', path.join(storeDir, 'data'), '-p', String(port), '-k', storeDir, '-c', 'listen_addresses=127.0.0.1'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    cwd: storeDir,
    logFile,
    user: postgresUser(),
    stopSignal: 'SIGINT',
    ready: () => asClient(superuserUrl, async (client) => void (await client.query('select 1'))).then(() => true),
  });
}

/**
 * Creates (or brings up to date) the roles and the database; safe to run on every start. The
 * agents' grants cover the tables the servers create later too (default privileges of warden_server).
 */
export async function setUpStoreRoles(port: number, passwords: StorePasswords): Promise<void> {
  await asClient(storeUrl(port, 'postgres', passwords.superuser, 'postgres'), async (client) => {
    await ensureLoginRole(client, serverRole, passwords.server);
    await ensureGroupRole(client, agentGroupRole);
    for (const [index, password] of passwords.agents.entries()) await ensureLoginRole(client, agentRole(index + 1), password, agentGroupRole);
    await ensureDatabase(client, storeDatabase, serverRole);
  });
  await asClient(storeUrl(port, 'postgres', passwords.superuser), (client) => grantAgentsRows(client, storeDatabase, agentGroupRole, serverRole));
}

async function asClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const roleExists = async (client: pg.Client, role: string) => (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;

/** A role that signs in with `password`; a member of `memberOf` when given. */
async function ensureLoginRole(client: pg.Client, role: string, password: string, memberOf?: string): Promise<void> {
  const name = client.escapeIdentifier(role);
  const verb = (await roleExists(client, role)) ? 'ALTER' : 'CREATE';
  await client.query(`${verb} ROLE ${name} LOGIN PASSWORD ${client.escapeLiteral(password)}`);
  if (memberOf) await client.query(`GRANT ${client.escapeIdentifier(memberOf)} TO ${name}`);
}

/** A role nobody signs in as, holding what its members share. */
async function ensureGroupRole(client: pg.Client, role: string): Promise<void> {
  if (!(await roleExists(client, role))) await client.query(`CREATE ROLE ${client.escapeIdentifier(role)} NOLOGIN`);
}

async function ensureDatabase(client: pg.Client, database: string, owner: string): Promise<void> {
  const exists = (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
  if (!exists) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${client.escapeIdentifier(owner)}`);
}

/**
 * Rows, not tables: agents read and write every table's rows and draw from its sequences, today's
 * and those `owner` creates later; only the owner (the servers) connects otherwise and migrates.
 */
async function grantAgentsRows(client: pg.Client, database: string, agents: string, owner: string): Promise<void> {
  const [db, role, by] = [database, agents, owner].map((name) => client.escapeIdentifier(name));
  await client.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
  await client.query(`GRANT CONNECT ON DATABASE ${db} TO ${role}`);
  await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
  await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
  await client.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${by} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${role}`);
  await client.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${by} IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${role}`);
}
