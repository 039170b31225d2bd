import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { BackupContents, RestoreSkip } from '../../contracts/backups';
import { pgOwnerRole } from '../../contracts/databases';
import type { RestoreReport } from './engine';
import { connectionArgs, dbnameArg, readPgManifest, withClient, type PgTarget, type Tools } from './pgBackup';
import { applyRoleSettings, readRecordedRoles, remakeRoles } from './pgGlobals';
import { newPassword, restoreRole, setRolePassword } from './pgRoles';
import { EngineError, spawnTool, type RunOptions } from './processRunner';
import { instanceUser, type EngineUser } from './instanceUsers';

// Restoring a database backup into a fresh instance (verify, clone, a script's sandbox). The dump is
// the tenant's, and PostgreSQL runs the owner role's code while it restores: a domain's check and a
// generated column for every row loaded, a CHECK constraint's function when the constraint is added
// (as the user adding it, not the table's owner), index expressions and materialized views (as the
// table's owner). Run by the superuser, that code could run programs on the host (COPY … TO PROGRAM),
// and SET ROLE would not contain it (the code could RESET ROLE). So every section of every database
// is restored over a login of its own with the tenant's rights and no more: no attribute, a member of
// the owner role and of the roles the backup recorded (made again as the roles API makes them, see
// pgGlobals.ts). Being their member, it gives every object its recorded owner and grants. What only a
// superuser may make (an event trigger, a function in an untrusted language, an untrusted extension,
// an object owned by the superuser) fails, is left out and reported. The superuser makes the roles
// and the databases from names it checked, and drops the login afterwards, whatever happened.

const restoreTimeoutMs = 6 * 60 * 60_000;
/** Reported statements kept; the rest are counted. */
const maxReported = 100;

/** Restores roles, then every database, into a fresh running server; answers what it left out. */
export async function pgRestoreInto(tools: Tools, dir: string, target: PgTarget): Promise<RestoreReport> {
  const manifest = readPgManifest(dir);
  const recorded = readRecordedRoles(fs.readFileSync(path.join(dir, 'globals.sql'), 'utf8'));
  const skipped: RestoreSkip[] = [...recorded.skipped];
  let unlisted = 0;
  const password = newPassword();
  try {
    const roles = await withClient(target, 'postgres', async (c) => createLogin(c, password, await remakeRoles(c, recorded, skipped), skipped));
    for (const database of manifest.databases) {
      const file = path.join(dir, database.file);
      const owner = await recordedOwner(tools, target, dir, file, database.name);
      await withClient(target, 'postgres', (c) => makeDatabase(c, database.name, owner !== null && roles.includes(owner) ? owner : pgOwnerRole));
      const failed = await restoreAsLogin(tools, target, dir, file, database.name, password);
      skipped.push(...failed.skipped);
      unlisted += failed.unlisted;
    }
    await asLogin(target, password, (c) => applyRoleSettings(c, recorded, roles, skipped));
  } finally {
    await dropLogin(target);
  }
  unlisted += Math.max(0, skipped.length - maxReported);
  return { skipped: [...skipped.slice(0, maxReported), ...(unlisted > 0 ? [{ database: null, what: `${unlisted} more`, reason: 'Not listed here.' }] : [])] };
}

/**
 * Makes the restore's login, a member of each of `roles` that cannot reach a superuser's powers or
 * the host (every restored role is made so; the check holds whatever the instance holds). Answers
 * the roles it joined: the backup's objects may belong to them.
 */
async function createLogin(c: Client, password: string, roles: string[], skipped: RestoreSkip[]): Promise<string[]> {
  const login = c.escapeIdentifier(restoreRole);
  await c.query(`drop role if exists ${login}`);
  await c.query(`create role ${login} login nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit`);
  await setRolePassword(c, restoreRole, password);
  const { rows } = await c.query<{ name: string }>(
    `select r.rolname as name from pg_roles r
      where r.rolname = any($1)
        and not (r.rolsuper or r.rolcreaterole or r.rolreplication or r.rolbypassrls)
        and not exists (select 1 from pg_roles d
                         where d.oid <> r.oid and pg_has_role(r.oid, d.oid, 'MEMBER')
                           and (d.rolsuper or d.rolcreaterole or d.rolreplication or d.rolbypassrls or d.rolname like 'pg\\_%'))`,
    [roles],
  );
  const safe = rows.map((r) => r.name);
  for (const role of roles.filter((r) => !safe.includes(r))) {
    skipped.push({ database: null, what: `objects of role ${role}`, reason: `${role} can reach a superuser's powers or the host: what it owns is restored as the owner role's.` });
  }
  for (const role of safe) await c.query(`grant ${c.escapeIdentifier(role)} to ${login}`);
  // The instance's own database belongs to the superuser: the login may create in it (and its public
  // schema), and what it makes there goes to the owner role afterwards.
  await c.query(`grant create on database postgres to ${login}`);
  await c.query(`grant create on schema public to ${login}`);
  return safe;
}

/**
 * The database as the superuser makes it: owned by the role the dump names when the login could
 * act as it, else by the owner role. The owner role's database and `postgres` exist already.
 */
async function makeDatabase(c: Client, name: string, owner: string) {
  const exists = await c.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount === 0) await c.query(`create database ${c.escapeIdentifier(name)} owner ${c.escapeIdentifier(owner)} template template0`);
}

/** The owner of the database the dump recorded (its TOC's DATABASE entry), or null. */
async function recordedOwner(tools: Tools, target: PgTarget, dir: string, file: string, database: string): Promise<string | null> {
  // pg_restore -l prints `<id>; 1262 <oid> DATABASE - <name> <owner>`, line breaks in names as spaces.
  const named = ` DATABASE - ${database.replace(/[\r\n]/g, ' ')} `;
  let owner: string | null = null;
  const options: ToolOptions = { binds: [dir], timeoutMs: 10 * 60_000 };
  const { code, lastLines } = await runLines(instanceUser(target.rt), tools.bin('pg_restore'), ['-C', '-l', file], options, (line) => {
    if (owner === null && /^\d+; 1262 \d+ DATABASE - /.test(line) && line.includes(named)) owner = line.slice(line.indexOf(named) + named.length);
  });
  if (code !== 0) throw new EngineError(`pg_restore could not read ${path.basename(file)}: ${lastLines.join('\n')}`);
  return owner;
}

/**
 * Restores one database over the login, all sections at once (-j 2). pg_restore goes on past a
 * statement PostgreSQL refuses and names it on stderr; those are answered as left out. -C adds the
 * database's settings and grants (its CREATE DATABASE fails: the superuser made it already); the
 * instance's `postgres` database keeps its own.
 */
async function restoreAsLogin(tools: Tools, target: PgTarget, dir: string, file: string, database: string, password: string) {
  const failed = failedStatements(database);
  const args = [...connectionArgs(target, restoreRole), '-j', '2', ...(database === 'postgres' ? [] : ['-C']), '-d', dbnameArg(database), file];
  const options: ToolOptions = { env: { PGPASSWORD: password }, binds: [dir], timeoutMs: restoreTimeoutMs };
  const { code, lastLines } = await runLines(instanceUser(target.rt), tools.bin('pg_restore'), args, options, failed.line);
  failed.end();
  // It ends its output with the count of statements it went past; any other end is a failure.
  if (code !== 0 && !/^pg_restore: warning: errors ignored on restore: \d+$/.test(lastLines.at(-1) ?? '')) {
    throw new EngineError(`pg_restore failed on database ${database}: ${lastLines.join('\n')}`);
  }
  return failed;
}

/**
 * Reads pg_restore's stderr: `pg_restore: error: could not execute query: ERROR:  <why>`, detail
 * lines, then `Command was: <statement>` (or `COPY failed for table "t": ERROR: …` for rows). Keeps
 * the first maxReported and counts the others.
 */
function failedStatements(database: string) {
  const failed = { skipped: [] as RestoreSkip[], unlisted: 0 };
  let current: { head: string; command: string | null } | null = null;
  const end = () => {
    if (!current) return;
    const { head, command } = current;
    current = null;
    const reason = (/ERROR:\s+(.*)$/.exec(head)?.[1] ?? head).slice(0, 300);
    const what = (command ?? head.replace(/:\s*ERROR:.*$/, '')).replace(/;$/, '').slice(0, 200);
    // -C's CREATE DATABASE: the database was made by the superuser.
    if (what.startsWith('CREATE DATABASE ') && reason.startsWith('permission denied to create database')) return;
    if (failed.skipped.length < maxReported) failed.skipped.push({ database, what, reason });
    else failed.unlisted++;
  };
  return Object.assign(failed, {
    end,
    line(text: string) {
      if (text.startsWith('pg_restore: ')) {
        end();
        const error = /^pg_restore: error: (.*)$/.exec(text);
        if (error) current = { head: error[1], command: null };
      } else if (current && current.command === null && text.startsWith('Command was: ')) {
        current.command = text.slice('Command was: '.length);
      }
    },
  });
}

/** pg_restore's line opening a table's data: `COPY schema.table (columns) FROM stdin;`, names quoted as format('%I') quotes them. */
const copyLine = /^COPY ((?:"(?:[^"]|"")*"|[^\s."]+)\.(?:"(?:[^"]|"")*"|[^\s."]+)) .*FROM stdin;$/;

/**
 * The backup's contents with exact row counts, counted from the dumps themselves where the manifest
 * holds estimates: pg_restore writes a dump's data as COPY blocks, one line a row (line breaks in
 * values are escaped). Run confined as `target`'s user, like the restore. A table the manifest names
 * without data in the dump fails the count.
 */
export async function pgDumpedContents(tools: Tools, dir: string, target: PgTarget, recorded: BackupContents): Promise<BackupContents> {
  const manifest = readPgManifest(dir);
  const databases: NonNullable<BackupContents['databases']> = [];
  for (const database of recorded.databases ?? []) {
    const entry = manifest.databases.find((d) => d.name === database.name);
    if (!database.rowsEstimated || !entry) {
      databases.push(database);
      continue;
    }
    const rows = await countDumpedRows(tools, target, dir, path.join(dir, entry.file));
    const absent = Object.keys(database.rows).filter((table) => !(table in rows));
    if (absent.length > 0) throw new EngineError(`The dump of database ${database.name} holds no data for ${absent.join(', ')}, which the backup names.`);
    databases.push({ name: database.name, bytes: database.bytes, rows });
  }
  return { ...recorded, databases };
}

async function countDumpedRows(tools: Tools, target: PgTarget, dir: string, file: string): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  let table: string | null = null;
  const options: ToolOptions = { binds: [dir], timeoutMs: restoreTimeoutMs };
  const { code, lastLines } = await runLines(instanceUser(target.rt), tools.bin('pg_restore'), ['--data-only', '-f', '-', file], options, (line, from) => {
    if (from !== 'stdout') return;
    if (table !== null) {
      if (line === '\\.') table = null;
      else rows[table]++;
      return;
    }
    const copy = copyLine.exec(line);
    if (copy) {
      table = copy[1];
      rows[table] = 0;
    }
  });
  if (code !== 0) throw new EngineError(`pg_restore could not read ${path.basename(file)}: ${lastLines.join('\n')}`);
  return rows;
}

/** How pg_restore runs here: the folder it reads outside the instance's (the unpacked backup) and a time limit. */
type ToolOptions = RunOptions & { binds: string[]; timeoutMs: number };

/** Runs a tool as `user`, handing each line it prints to `onLine`; answers its exit code and last lines. */
function runLines(
  user: EngineUser | null,
  command: string,
  args: string[],
  options: ToolOptions,
  onLine: (line: string, from: 'stdout' | 'stderr') => void,
): Promise<{ code: number; lastLines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(user, command, args, options);
    const lastLines: string[] = [];
    const take = (line: string, from: 'stdout' | 'stderr') => {
      if (line.trim() !== '') lastLines.push(line);
      if (lastLines.length > 20) lastLines.shift();
      onLine(line, from);
    };
    const rests = (['stdout', 'stderr'] as const).map((from) => {
      const rest = { text: '', from };
      child[from].on('data', (chunk: Buffer) => {
        const lines = (rest.text + chunk.toString('utf8')).split('\n');
        rest.text = lines.pop() ?? '';
        for (const line of lines) take(line, from);
      });
      return rest;
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const rest of rests) if (rest.text) take(rest.text, rest.from);
      if (signal) reject(new EngineError(`${path.basename(command)} was stopped (${signal}): ${lastLines.join('\n')}`));
      else resolve({ code: code ?? 1, lastLines });
    });
    child.stdin.end();
  });
}

/** A session as the restore's login (the role settings are applied by each role, through it). */
async function asLogin<T>(target: PgTarget, password: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ host: target.socket, port: target.rt.port, user: restoreRole, database: 'postgres', password, connectionTimeoutMillis: 5000, statement_timeout: 60_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Ends the login's sessions, gives what it owns in any database to the owner role (what it made
 * where the recorded owner could not be used, and what the tenant's code made while it ran), takes
 * back its grants, and drops it.
 */
async function dropLogin(target: PgTarget) {
  const login = `"${restoreRole}"`;
  const databases = await withClient(target, 'postgres', async (c) => {
    await c.query('select pg_terminate_backend(pid) from pg_stat_activity where usename = $1', [restoreRole]);
    return (await c.query<{ name: string }>('select datname as name from pg_database where datallowconn')).rows.map((r) => r.name);
  }).catch(() => [] as string[]);
  for (const database of databases) {
    await withClient(target, database, (c) => c.query(`reassign owned by ${login} to ${c.escapeIdentifier(pgOwnerRole)}; drop owned by ${login}`)).catch(() => undefined);
  }
  await withClient(target, 'postgres', (c) => c.query(`drop role if exists ${login}`)).catch((error: unknown) => {
    throw new EngineError(`The restore's login could not be dropped: ${(error as Error).message}`);
  });
}
