import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseError, type Client } from 'pg';
import { pgDefaultDatabase, pgOwnerRole, type Database, type DbRole } from '../../contracts/databases';
import { writeInstanceFile } from './instanceFiles';
import { withClient, type PgTarget } from './pgBackup';

// The roles of a PostgreSQL instance (DESIGN §11): a superuser only the control plane uses, an owner
// role people get, and further roles and databases made through Warden. Everything here runs as
// the superuser over the instance's socket; identifiers go through escapeIdentifier, values
// through escapeLiteral or bind parameters.

/** Marks the roles made through Warden: only they may be changed, dropped or granted. */
const managedComment = 'Managed by Warden';
/** Predefined roles that reach the host's files and programs: never granted to anyone people use. */
const serverRoles = ['pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'];
/** The login a restore runs as (pgRestore.ts): made and dropped by every restore, so no one else may hold the name. */
export const restoreRole = 'warden_restore_loader';

/** Role names nobody may take: PostgreSQL's own, the control plane's and the owner's. */
const reservedRoles = new Set(['postgres', pgOwnerRole, restoreRole, 'public', 'none', 'current_user', 'current_role', 'session_user']);
const systemDatabases = new Set(['postgres', 'template0', 'template1']);

/** A request the instance refuses, with the status to answer and the field it is about, if any. */
export class PgRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const ownerSecretFile = (rt: PgTarget['rt']) => path.join(rt.dir, 'owner.password');

export const newPassword = () => randomBytes(24).toString('base64url');

/** Writes a secret 0600 (the server's own) into the instance folder, whole or not at all. */
export function writeSecret(file: string, value: string) {
  writeInstanceFile(file, `${value}\n`, { within: path.dirname(file) });
}

/** The owner role's password, kept 0600 beside the superuser's; null before the first start made it. */
export function pgOwnerPassword(rt: PgTarget['rt']): string | null {
  try {
    return fs.readFileSync(ownerSecretFile(rt), 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Sets a role's password. The statement carries it, so the server is told not to log this session's
 * statements whatever the instance's logging parameters say (the logs are readable by the group).
 */
export async function setRolePassword(client: Client, role: string, password: string) {
  await client.query(
    `set log_statement = 'none'; set log_min_error_statement = 'panic'; set log_min_duration_statement = -1;
     set log_min_duration_sample = -1; set log_transaction_sample_rate = 0; set password_encryption = 'scram-sha-256'`,
  );
  await client.query(`alter role ${client.escapeIdentifier(role)} password ${client.escapeLiteral(password)}`);
}

/**
 * Makes the owner role what DESIGN §11 says, whatever it was: LOGIN CREATEDB and nothing more, no
 * membership that leads to a superuser or to the host's files and programs, owner of the default
 * database, with the password of the owner file. Idempotent: run at every start.
 */
async function ensureOwner(client: Client, password: string) {
  const owner = client.escapeIdentifier(pgOwnerRole);
  const exists = await client.query('select 1 from pg_roles where rolname = $1', [pgOwnerRole]);
  if (exists.rowCount === 0) await client.query(`create role ${owner}`);
  await client.query(`alter role ${owner} with login createdb nosuperuser nocreaterole noreplication nobypassrls`);
  await setRolePassword(client, pgOwnerRole, password);
  // Direct memberships through which the owner could reach a superuser, CREATEROLE or a server role.
  const risky = await client.query<{ name: string }>(
    `select g.rolname as name
       from pg_auth_members m join pg_roles g on g.oid = m.roleid
      where m.member = (select oid from pg_roles where rolname = $1)
        and exists (select 1 from pg_roles d
                     where (d.rolsuper or d.rolcreaterole or d.rolname = any($2))
                       and pg_has_role(g.oid, d.oid, 'MEMBER'))`,
    [pgOwnerRole, serverRoles],
  );
  for (const { name } of risky.rows) await client.query(`revoke ${client.escapeIdentifier(name)} from ${owner}`);
  const database = await client.query<{ owner: string }>(
    'select pg_get_userbyid(datdba) as owner from pg_database where datname = $1',
    [pgDefaultDatabase],
  );
  const db = client.escapeIdentifier(pgDefaultDatabase);
  if (database.rowCount === 0) await client.query(`create database ${db} owner ${owner}`);
  else if (database.rows[0].owner !== pgOwnerRole) await client.query(`alter database ${db} owner to ${owner}`);
}

/**
 * After every start: adopts a superuser password a clone was given (its data still holds the
 * source's, kept in `previousSuperuserFile` until changed), then ensures the owner role, making its
 * password on the first start of an instance (or of a clone, which so never shares the source's).
 */
export async function ensurePgRoles(target: PgTarget, previousSuperuserFile: string) {
  if (fs.existsSync(previousSuperuserFile)) {
    const previous = fs.readFileSync(previousSuperuserFile, 'utf8').trim();
    try {
      await withClient({ ...target, password: previous }, 'postgres', (c) => setRolePassword(c, 'postgres', target.password), 10_000);
    } catch (error) {
      // 28P01: the previous password no longer works because a start that stopped half-way changed it.
      if ((error as { code?: string }).code !== '28P01') throw error;
    }
    fs.rmSync(previousSuperuserFile, { force: true });
  }
  let password = pgOwnerPassword(target.rt);
  if (password === null) {
    password = newPassword();
    writeSecret(ownerSecretFile(target.rt), password);
  }
  const owner = password;
  await withClient(target, 'postgres', (c) => ensureOwner(c, owner), 30_000);
}

/** A new owner password: set in the server first, then kept, so the file never names one that fails. */
export async function rotateOwnerPassword(target: PgTarget): Promise<string> {
  const password = newPassword();
  await asSuperuser(target, 'postgres', (c) => setRolePassword(c, pgOwnerRole, password));
  writeSecret(ownerSecretFile(target.rt), password);
  return password;
}

// ---- Databases and roles through the API (DESIGN §10) ----

/** pg errors a request can cause, as the status to answer. */
const refusalStatus: Record<string, 400 | 404 | 409> = {
  '42710': 409, // duplicate_object
  '42P04': 409, // duplicate_database
  '42704': 404, // undefined_object
  '3D000': 404, // invalid_catalog_name
  '55006': 409, // object_in_use
  '2BP01': 409, // dependent_objects_still_exist
  '0LP01': 400, // invalid_grant_operation (a membership loop)
  '42501': 409, // insufficient_privilege
};

/**
 * Runs `use` as the superuser; what the instance answers becomes a PgRefusal (never a 500 for a
 * request the instance turns down), and a server that does not answer a 409.
 */
export async function asSuperuser<T>(target: PgTarget, database: string, use: (client: Client) => Promise<T>): Promise<T> {
  try {
    return await withClient(target, database, use, 60_000);
  } catch (error) {
    if (error instanceof PgRefusal) throw error;
    if (error instanceof DatabaseError) throw new PgRefusal(refusalStatus[error.code ?? ''] ?? 409, error.message);
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED' || /Connection terminated|timeout/i.test((error as Error).message)) {
      // The socket path and the driver's words are the server's business, not the caller's.
      throw new PgRefusal(409, 'The instance does not answer: it may be stopping or restarting; try again once it runs.');
    }
    throw error;
  }
}

const isManaged = `coalesce(shobj_description(r.oid, 'pg_authid'), '') = '${managedComment}'`;

export async function listDatabases(target: PgTarget): Promise<Database[]> {
  return asSuperuser(target, 'postgres', async (c) => {
    const { rows } = await c.query<{ name: string; owner: string; bytes: string }>(
      `select datname as name, pg_get_userbyid(datdba) as owner, pg_database_size(oid)::text as bytes
         from pg_database where not datistemplate order by datname`,
    );
    return rows.map((r) => ({
      name: r.name,
      owner: r.owner,
      sizeBytes: Number(r.bytes),
      isDefault: r.name === pgDefaultDatabase,
      system: systemDatabases.has(r.name),
    }));
  });
}

/** The role if people may use it through Warden (the owner or a managed role), else a refusal about `field`. */
export async function grantable(c: Client, name: string, field: string) {
  const { rows } = await c.query<{ managed: boolean }>(`select ${isManaged} as managed from pg_roles r where rolname = $1`, [name]);
  if (rows.length === 0) throw new PgRefusal(400, `No role is named ${name}.`, field);
  if (name !== pgOwnerRole && !rows[0].managed) {
    throw new PgRefusal(400, `${name} was not made through Warden: only the owner role and roles made here may be used.`, field);
  }
}

export async function createDatabase(target: PgTarget, name: string, owner = pgOwnerRole): Promise<Database> {
  if (systemDatabases.has(name) || name.startsWith('pg_')) throw new PgRefusal(400, `${name} is reserved.`, 'name');
  await asSuperuser(target, 'postgres', async (c) => {
    await grantable(c, owner, 'owner');
    await c.query(`create database ${c.escapeIdentifier(name)} owner ${c.escapeIdentifier(owner)}`);
  });
  return (await listDatabases(target)).find((d) => d.name === name)!;
}

/** Drops a database, ending its connections first; the default and the system ones stay. */
export async function dropDatabase(target: PgTarget, name: string): Promise<void> {
  if (name === pgDefaultDatabase) throw new PgRefusal(409, `${name} is the instance's default database: it cannot be dropped.`);
  if (systemDatabases.has(name)) throw new PgRefusal(409, `${name} is a system database: it cannot be dropped.`);
  await asSuperuser(target, 'postgres', async (c) => {
    const found = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) throw new PgRefusal(404, `No database is named ${name}.`);
    await c.query(`drop database ${c.escapeIdentifier(name)} with (force)`);
  });
}

export async function listRoles(target: PgTarget): Promise<DbRole[]> {
  return asSuperuser(target, 'postgres', (c) => rolesOf(c));
}

async function rolesOf(c: Client): Promise<DbRole[]> {
  const { rows } = await c.query<{ name: string; login: boolean; superuser: boolean; managed: boolean; member_of: string[] }>(
    `select r.rolname as name, r.rolcanlogin as login, r.rolsuper as superuser, ${isManaged} as managed,
            array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
                   where m.member = r.oid order by 1) as member_of
       from pg_roles r where r.rolname !~ '^pg_' order by r.rolname`,
  );
  return rows.map((r) => ({ name: r.name, login: r.login, superuser: r.superuser, owner: r.name === pgOwnerRole, managed: r.managed, memberOf: r.member_of }));
}

export function checkNewRoleName(name: string, field: string) {
  if (name.startsWith('pg_') || reservedRoles.has(name)) throw new PgRefusal(400, `${name} is reserved.`, field);
}

/** The role by name if it was made through Warden; the owner, the superuser and others are refused. */
async function managedRole(c: Client, name: string): Promise<DbRole> {
  const role = (await rolesOf(c)).find((r) => r.name === name);
  if (!role) throw new PgRefusal(404, `No role is named ${name}.`);
  if (role.owner) throw new PgRefusal(409, `${name} is the owner role: rotate its password from the connection details; it cannot be renamed or dropped.`);
  if (!role.managed) throw new PgRefusal(409, `${name} was not made through Warden: it cannot be changed here.`);
  return role;
}

/** Grants and revokes so that `role` is a member of exactly `wanted` (roles people may use only). */
async function setMemberships(c: Client, role: string, current: string[], wanted: string[]) {
  for (const name of wanted) {
    if (name === role) throw new PgRefusal(400, 'A role cannot be a member of itself.', 'memberOf');
    await grantable(c, name, 'memberOf');
  }
  const who = c.escapeIdentifier(role);
  for (const name of wanted.filter((n) => !current.includes(n))) await c.query(`grant ${c.escapeIdentifier(name)} to ${who}`);
  for (const name of current.filter((n) => !wanted.includes(n))) await c.query(`revoke ${c.escapeIdentifier(name)} from ${who}`);
}

/** In one transaction, so a refused membership leaves no half-made role behind. */
async function inTransaction<T>(c: Client, work: () => Promise<T>): Promise<T> {
  await c.query('begin');
  try {
    const result = await work();
    await c.query('commit');
    return result;
  } catch (error) {
    await c.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** A role with no attribute beyond LOGIN, marked as made through Warden (the name is checked by the caller). */
export async function makeManagedRole(c: Client, name: string, login: boolean) {
  const role = c.escapeIdentifier(name);
  await c.query(`create role ${role} with ${login ? 'login' : 'nologin'} nosuperuser nocreaterole nocreatedb noreplication nobypassrls`);
  await c.query(`comment on role ${role} is ${c.escapeLiteral(managedComment)}`);
}

export interface NewRole {
  name: string;
  login: boolean;
  password?: string;
  memberOf?: string[];
}

export async function createRole(target: PgTarget, input: NewRole): Promise<DbRole> {
  checkNewRoleName(input.name, 'name');
  return asSuperuser(target, 'postgres', (c) =>
    inTransaction(c, async () => {
      await makeManagedRole(c, input.name, input.login);
      if (input.password !== undefined) await setRolePassword(c, input.name, input.password);
      await setMemberships(c, input.name, [], input.memberOf ?? []);
      return (await rolesOf(c)).find((r) => r.name === input.name)!;
    }),
  );
}

export interface RoleChange {
  newName?: string;
  password?: string;
  login?: boolean;
  memberOf?: string[];
}

export async function updateRole(target: PgTarget, name: string, change: RoleChange): Promise<DbRole> {
  if (change.newName !== undefined && change.newName !== name) checkNewRoleName(change.newName, 'newName');
  return asSuperuser(target, 'postgres', (c) =>
    inTransaction(c, async () => {
      const role = await managedRole(c, name);
      if (change.login !== undefined) await c.query(`alter role ${c.escapeIdentifier(name)} with ${change.login ? 'login' : 'nologin'}`);
      if (change.memberOf !== undefined) await setMemberships(c, name, role.memberOf, change.memberOf);
      let current = name;
      if (change.newName !== undefined && change.newName !== name) {
        await c.query(`alter role ${c.escapeIdentifier(name)} rename to ${c.escapeIdentifier(change.newName)}`);
        current = change.newName;
      }
      if (change.password !== undefined) await setRolePassword(c, current, change.password);
      return (await rolesOf(c)).find((r) => r.name === current)!;
    }),
  );
}

/**
 * Drops a role made through Warden. What it owns goes to the owner role and its privileges go, in
 * every database, as PostgreSQL's own recipe (REASSIGN OWNED, DROP OWNED) does it.
 */
export async function dropRole(target: PgTarget, name: string): Promise<void> {
  const databases = await asSuperuser(target, 'postgres', async (c) => {
    await managedRole(c, name);
    return (await c.query<{ name: string }>('select datname as name from pg_database where datallowconn order by 1')).rows.map((r) => r.name);
  });
  for (const database of databases) {
    await asSuperuser(target, database, async (c) => {
      const role = c.escapeIdentifier(name);
      await c.query(`reassign owned by ${role} to ${c.escapeIdentifier(pgOwnerRole)}`);
      await c.query(`drop owned by ${role}`);
    });
  }
  await asSuperuser(target, 'postgres', (c) => c.query(`drop role ${c.escapeIdentifier(name)}`));
}
