import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from 'pg';
import { pgDefaultDatabase, pgOwnerRole } from '../../contracts/databases';
import { connectionArgs, dbnameArg, readPgManifest, withClient, type PgTarget, type Tools } from './pgBackup';
import { restoreLoaderRole, setRolePassword } from './pgRoles';
import { EngineError, instanceUser, run, spawnTool } from './processRunner';

// Restoring a database backup into a fresh instance (verify, clone, a script's sandbox). The dump is
// the tenant's: its tables may carry the owner role's code (a CHECK constraint, a domain's check, a
// generated column), which runs while rows load. Loaded as the superuser, that code could run programs
// on the host (COPY … TO PROGRAM); SET ROLE would not contain it, as the code could RESET ROLE. So the
// rows load over a login of their own: a role with no superuser, no memberships and nothing but the
// right to insert, made for the restore and dropped after it. Objects are made before and after, as
// the superuser: creating them runs none of their code, and PostgreSQL builds indexes and checks
// constraints as the table's owner.

/** The role that loads the rows: the roles API refuses its name, so no dump holds a role of that name. */
const loaderRole = restoreLoaderRole;

const restoreTimeoutMs = 6 * 60 * 60_000;

/** Runs SQL through psql's stdin (so the file needs no engine-user access), stopping at the first error. */
function psqlStdin(tools: Tools, target: PgTarget, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(
      instanceUser(target.rt),
      tools.bin('psql'),
      ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...connectionArgs(target), '-d', 'postgres', '-f', '-'],
      { env: { PGPASSWORD: target.password } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new EngineError(`psql failed: ${stderr.trim()}`))));
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}

/** Restores roles, then every database, into a fresh running server. */
export async function pgRestoreInto(tools: Tools, dir: string, target: PgTarget): Promise<void> {
  const manifest = readPgManifest(dir);
  // The superuser keeps the new instance's own password, or the console could not reach it. The
  // owner role and the default database exist already (made at the first start): the backup's
  // attributes of the owner are applied, then the engine sets them right again.
  const globals = fs
    .readFileSync(path.join(dir, 'globals.sql'), 'utf8')
    .split('\n')
    .filter((line) => !/^(CREATE|ALTER) ROLE postgres\b/.test(line) && line !== `CREATE ROLE ${pgOwnerRole};`)
    .join('\n');
  await psqlStdin(tools, target, globals);

  const password = randomBytes(24).toString('base64url');
  await withClient(target, 'postgres', async (client) => {
    await client.query(`drop role if exists ${loaderRole}`);
    await client.query(`create role ${loaderRole} login nosuperuser nocreatedb nocreaterole noinherit bypassrls`);
    await setRolePassword(client, loaderRole, password);
  });
  const restore = (section: string, user: string, env: Record<string, string>, args: string[], file: string) =>
    run(instanceUser(target.rt), tools.bin('pg_restore'), [...connectionArgs(target, user), '--exit-on-error', `--section=${section}`, ...args, file], {
      env,
      timeoutMs: restoreTimeoutMs,
    });
  const superuser = { PGPASSWORD: target.password };
  try {
    for (const database of manifest.databases) {
      const file = path.join(dir, database.file);
      const into = ['-d', dbnameArg(database.name)];
      const existing = database.name === 'postgres' || database.name === pgDefaultDatabase;
      await restore('pre-data', 'postgres', superuser, existing ? into : ['-C', '-d', 'postgres'], file);
      await withClient(target, database.name, grantLoading);
      await restore('data', loaderRole, { PGPASSWORD: password }, ['-j', '2', ...into], file);
      await withClient(target, database.name, (client) => client.query(`drop owned by ${loaderRole}`));
      await restore('post-data', 'postgres', superuser, ['-j', '2', ...into], file);
    }
  } finally {
    await dropLoader(target, manifest.databases.map((d) => d.name));
  }
}

/**
 * What loading rows takes and no more: entering the database and its schemas, inserting into its
 * tables, setting its sequences, writing its large objects (which PostgreSQL opens for reading too).
 * Granted to the loader alone; `drop owned` takes it all back.
 */
async function grantLoading(client: Client) {
  await client.query(`
    do $grant$
    declare
      item record;
    begin
      execute format('grant connect on database %I to ${loaderRole}', current_database());
      for item in
        select nspname from pg_namespace
         where nspname not in ('pg_catalog', 'information_schema') and nspname !~ '^pg_(toast|temp_|toast_temp_)'
      loop
        execute format('grant usage on schema %I to ${loaderRole}', item.nspname);
        execute format('grant insert on all tables in schema %I to ${loaderRole}', item.nspname);
        execute format('grant update on all sequences in schema %I to ${loaderRole}', item.nspname);
      end loop;
      for item in select oid from pg_largeobject_metadata loop
        execute format('grant select, update on large object %s to ${loaderRole}', item.oid);
      end loop;
    end
    $grant$`);
}

/** Takes back every grant to the loader (and anything its rows' code made), then drops it. */
async function dropLoader(target: PgTarget, databases: string[]) {
  for (const database of databases) {
    await withClient(target, database, (client) => client.query(`drop owned by ${loaderRole}`)).catch(() => undefined);
  }
  await withClient(target, 'postgres', (client) => client.query(`drop role if exists ${loaderRole}`)).catch((error: unknown) => {
    throw new EngineError(`The restore's loading role could not be dropped: ${(error as Error).message}`);
  });
}
