import fs from 'node:fs';
import path from 'node:path';
import { Client, DatabaseError } from 'pg';
import type { Instance } from '../../../contracts/instances';
import { addMembers, createGroup } from '../../../server/db/groups';
import { expectProblem } from '../helpers';
import { instanceWorld, type InstanceWorld } from './world';

// What a group member can do with the owner role's password (DESIGN §11): everything inside their
// databases, nothing that reaches the host's files and programs or another role's powers. Each
// attempt must fail with PostgreSQL's own permission error and leave nothing behind on disk.

jest.setTimeout(180_000);

let world: InstanceWorld;
let instance: Instance;
let member: string;
let owner: Client;
const marker = path.join('/tmp', `warden-attack-${process.pid}`);

/** The SQLSTATE a statement fails with, or 'ok' when it succeeds. */
async function outcome(sql: string): Promise<string> {
  try {
    await owner.query(sql);
    return 'ok';
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    return error.code ?? 'no code';
  }
}

beforeAll(async () => {
  world = await instanceWorld();
  member = await world.cookieFor('member@example.com');
  const group = await createGroup(world.db, { name: 'tenants' }, new Date());
  const user = await world.db.selectFrom('users').select('id').where('email', '=', 'member@example.com').executeTakeFirstOrThrow();
  await addMembers(world.db, group.id, [user.id], new Date());
  const res = await world.call('POST', '/instances', { name: 'target', type: 'pg', groupId: group.id });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  instance = await world.instance(res.json().id);
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret`, {}, member)).json() as { password: string };
  owner = new Client({ host: '127.0.0.1', port: instance.port, user: 'app', database: 'app', password });
  await owner.connect();
  await owner.query('create table t (line text)');
});

afterAll(async () => {
  await owner?.end().catch(() => undefined);
  await world.destroy();
  fs.rmSync(marker, { force: true });
});

// 42501 insufficient_privilege unless noted.
const attempts: [string, string, string[]][] = [
  ['runs a program through COPY TO', `copy (select 1) to program 'touch ${marker}'`, ['42501']],
  ['runs a program through COPY FROM', `copy t from program 'touch ${marker}'`, ['42501']],
  ['writes a server file through COPY', `copy (select 1) to '${marker}'`, ['42501']],
  ['reads a server file through COPY', `copy t from '/etc/passwd'`, ['42501']],
  ['reads a server file', `select pg_read_file('/etc/passwd')`, ['42501']],
  ['reads a server file as bytes', `select pg_read_binary_file('/etc/passwd')`, ['42501']],
  ['lists a server folder', `select pg_ls_dir('.')`, ['42501']],
  ['imports a server file as a large object', `select lo_import('/etc/passwd')`, ['42501']],
  ['exports a large object to a server file', `select lo_export(lo_create(0), '${marker}')`, ['42501']],
  ['creates a superuser', 'create role evil superuser', ['42501']],
  ['creates any role', 'create role evil', ['42501']],
  ['makes itself a superuser', 'alter role app superuser', ['42501']],
  ['gives itself CREATEROLE', 'alter role app createrole', ['42501']],
  ['gives itself replication', 'alter role app replication', ['42501']],
  ['changes the server configuration', `alter system set archive_command = 'touch ${marker}'`, ['42501']],
  ['sets a superuser-only parameter', `set session_preload_libraries = 'auto_explain'`, ['42501']],
  ['grants itself program execution', 'grant pg_execute_server_program to app', ['42501']],
  ['grants itself server file reads', 'grant pg_read_server_files to app', ['42501']],
  ['becomes the superuser', 'set role postgres', ['42501']],
  ['becomes the superuser for the session', 'set session authorization postgres', ['42501']],
  ['creates a C function', `create function evil() returns int as '/tmp/evil.so', 'evil' language c`, ['42501']],
  // Installed here and untrusted: only a superuser may create them.
  ['creates the file_fdw extension', 'create extension file_fdw', ['42501']],
  ['creates the adminpack extension', 'create extension adminpack', ['42501']],
  ['creates the dblink extension', 'create extension dblink', ['42501']],
  // Not installed by Debian's postgresql package: the answer is then 0A000 (not available), never success.
  ['creates the plpython3u language', 'create extension plpython3u', ['42501', '0A000']],
  ['creates the plperlu language', 'create language plperlu', ['42501', '0A000']],
  // Whatever is installed, a language with its own handler is a superuser's.
  ['creates an untrusted language with a handler', 'create language evil handler plpgsql_call_handler', ['42501']],
  ['changes the superuser password', `alter role postgres password 'taken-over'`, ['42501']],
  ['signals the postmaster', 'select pg_reload_conf()', ['42501']],
];

describe('the owner role cannot reach outside its databases', () => {
  it.each(attempts)('is refused when it %s', async (_what, sql, codes) => {
    expect(codes).toContain(await outcome(sql));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('keeps the attributes DESIGN §11 gives it after all of that', async () => {
    const { rows } = await owner.query(
      `select rolsuper, rolcreaterole, pg_has_role('app', 'pg_execute_server_program', 'MEMBER') as executes
         from pg_roles where rolname = current_user`,
    );
    expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, executes: false });
  });

  it("never gets its code run by the control plane's superuser sessions (a count() planted ahead of pg_catalog)", async () => {
    const planted = `${marker}-planted`;
    await owner.query(
      `create function public.plant(bigint) returns bigint language plpgsql as $$
         begin
           if (select rolsuper from pg_roles where rolname = current_user) then
             execute 'copy (select 1) to program ''touch ${planted}''';
           end if;
           return 0;
         end $$`,
    );
    await owner.query('create aggregate public.count(*) (sfunc = public.plant, stype = bigint, initcond = 0)');
    // The aggregate's function runs once per row counted.
    await owner.query("insert into t values ('counted')");
    await owner.query('alter database app set search_path = public, pg_catalog');
    try {
      // A backup counts every table's rows as the superuser; dropping a role reassigns in every database.
      expect((await world.call('POST', `/instances/${instance.id}/backups/database/backup`, {}, member)).statusCode).toBe(202);
      await world.backups().idle();
      const backups = (await world.call('GET', `/instances/${instance.id}/backups/database`, undefined, member)).json();
      expect(backups.items[0]).toMatchObject({ status: 'succeeded' });
      expect((await world.call('POST', `/instances/${instance.id}/roles`, { name: 'passing', login: false }, member)).statusCode).toBe(201);
      expect((await world.call('DELETE', `/instances/${instance.id}/roles/passing`, undefined, member)).statusCode).toBe(204);
      expect(fs.existsSync(planted)).toBe(false);
    } finally {
      fs.rmSync(planted, { force: true });
    }
  });

  it("never gets its code run as the superuser when a backup of its tables is restored (verify, clone)", async () => {
    const planted = `${marker}-restored`;
    // Code that runs for every row loaded into the table: a CHECK constraint, a domain's check and a
    // generated column, each trying the host's programs when it finds itself a superuser.
    await owner.query(
      `create function public.probe(text) returns boolean language plpgsql immutable as $$
         begin
           if (select rolsuper from pg_roles where rolname = current_user) then
             execute 'copy (select 1) to program ''touch ${planted}''';
           end if;
           return true;
         end $$`,
    );
    await owner.query('create domain probed as text check (public.probe(value))');
    await owner.query(
      `create table loaded (line text check (public.probe(line)), kind probed, seen boolean generated always as (public.probe(line)) stored)`,
    );
    await owner.query("insert into loaded (line, kind) select 'row ' || n, 'k' from generate_series(1, 50) n");
    await owner.query('create sequence counter start 7');
    await owner.query("select nextval('counter')");
    const { oid } = (await owner.query<{ oid: number }>("select lo_from_bytea(0, 'large object') as oid")).rows[0];
    try {
      expect((await world.call('POST', `/instances/${instance.id}/backups/database/backup`, {}, member)).statusCode).toBe(202);
      await world.backups().idle();
      const [backup] = (await world.call('GET', `/instances/${instance.id}/backups/database`, undefined, member)).json().items;
      expect(backup).toMatchObject({ status: 'succeeded' });

      expect((await world.call('POST', `/instances/${instance.id}/backups/${backup.id}/verify`, {}, member)).statusCode).toBe(202);
      await world.backups().idle();
      expect((await world.backups().find(backup.id))?.verification).toMatchObject({ ok: true });

      const res = await world.call('POST', `/instances/${instance.id}/clone`, { name: 'restored-probe', backupId: backup.id }, member);
      expect(res.statusCode).toBe(202);
      await world.service().idle();
      const clone = await world.instance(res.json().id);
      expect(clone.status).toBe('running');
      const { password } = (await world.call('POST', `/instances/${clone.id}/connection/secret`, {}, member)).json() as { password: string };
      const cloned = new Client({ host: '127.0.0.1', port: clone.port, user: 'app', database: 'app', password });
      await cloned.connect();
      try {
        // Every row, the sequence, the owner and the large object came across; the loading role is gone.
        // The database's search_path came with it and puts the planted count() first: pg_catalog's counts.
        expect((await cloned.query('select pg_catalog.count(*)::int as n, bool_and(seen) as seen from loaded')).rows[0]).toEqual({ n: 50, seen: true });
        expect((await cloned.query("select last_value::int as v from counter")).rows[0].v).toBe(7);
        expect((await cloned.query("select tableowner from pg_tables where tablename = 'loaded'")).rows[0].tableowner).toBe('app');
        expect((await cloned.query('select convert_from(lo_get($1), $2) as text', [oid, 'UTF8'])).rows[0].text).toBe('large object');
        expect((await cloned.query("select count(*)::int as n from pg_roles where rolname like 'warden_restore%'")).rows[0].n).toBe(0);
      } finally {
        await cloned.end();
      }
      expect(fs.existsSync(planted)).toBe(false);
    } finally {
      fs.rmSync(planted, { force: true });
    }
  });

  it('is refused the same through the roles API: no role joins pg_execute_server_program or the superuser', async () => {
    for (const memberOf of [['pg_execute_server_program'], ['postgres'], ['pg_write_server_files']]) {
      const res = await world.call('POST', `/instances/${instance.id}/roles`, { name: 'climber', login: true, memberOf }, member);
      expect(expectProblem(res, 400).errors).toHaveProperty('memberOf');
    }
    const made = await world.call('POST', `/instances/${instance.id}/roles`, { name: 'helper', login: false }, member);
    expect(made.statusCode).toBe(201);
    const grant = await world.call('PUT', `/instances/${instance.id}/roles/helper`, { memberOf: ['pg_execute_server_program'] }, member);
    expect(expectProblem(grant, 400).errors).toHaveProperty('memberOf');
    const superuserGrant = await world.call('PUT', `/instances/${instance.id}/roles/helper`, { memberOf: ['postgres'] }, member);
    expectProblem(superuserGrant, 400);
    const { rowCount } = await owner.query(`select 1 where pg_has_role('helper', 'pg_execute_server_program', 'MEMBER') or pg_has_role('helper', 'postgres', 'MEMBER')`);
    expect(rowCount).toBe(0);
  });
});
