import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup, RestoreSkip } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { LogsPage } from '../../../contracts/logs';
import type { PageOf } from '../../../contracts/page';
import type { ScriptRun } from '../../../contracts/scripts';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// A tenant's dump is restored (verify, clone from a backup, a script's sandbox) with the tenant's
// rights only. PostgreSQL runs the owner role's code while it restores: a CHECK constraint's function
// when the constraint is added (as the user adding it), a domain's check and a generated column for
// every row, an index expression and a materialized view (as the table's owner), a SECURITY DEFINER
// function as its owner. None of it may run as a superuser, whose code could run programs on the
// host. What only a superuser could make (an event trigger, a function in an untrusted language, an
// untrusted extension, a role's SUPERUSER) is left out and reported. One instance for the file.

jest.setTimeout(300_000);

let world: InstanceWorld;
let source: Instance;
let backup: Backup;
const marker = path.join('/tmp', `warden-restore-rights-${process.pid}`);
const loginRole = 'warden_restore_loader';

/**
 * What every planted piece of code calls: it notes who runs it (in a large object, which no row count
 * sees, so a verification still matches), and when it finds itself a superuser it runs a program on
 * the host and fails, which fails the restore.
 */
const witness = `
  create function public.witness(what text) returns boolean language plpgsql as $f$
  declare
    super boolean := (select rolsuper from pg_roles where rolname = current_user);
    noted oid;
  begin
    noted := lo_from_bytea(0, convert_to(concat_ws('|', what, current_user, super, current_setting('application_name')), 'UTF8'));
    execute format('grant select on large object %s to public', noted);
    if super then
      execute format('copy (select 1) to program %L', 'id > ${marker}-' || what || '; id > pwn-' || what);
      raise exception 'restored code ran as the superuser %', current_user;
    end if;
    return true;
  end $f$`;

/** The tenant's planted code, made as the owner role. */
const planted = [
  witness,
  // The reproduction: a CHECK constraint added after its rows, so pg_dump puts it in post-data.
  'create table t_evil(x int)',
  `create function chk(t_evil) returns boolean language plpgsql as $f$ begin if (select rolsuper from pg_roles where rolname = current_user) then execute 'copy (select 1) to program ''id > ${marker}'''; end if; return public.witness('check'); end $f$`,
  'insert into t_evil values (1)',
  'alter table t_evil add constraint c_evil check (chk(t_evil))',
  // Run for each row loaded.
  "create domain checked as int check (public.witness('domain'))",
  "create function public.twice(x int) returns int immutable language plpgsql as $f$ begin perform public.witness('generated'); return x * 2; end $f$",
  'create table gen (x checked, y int generated always as (public.twice(x)) stored)',
  'insert into gen (x) select generate_series(1, 3)',
  // Run when the index is built and the view refreshed, as their owner.
  "create function public.indexed(x int) returns int immutable language plpgsql as $f$ begin perform public.witness('index'); return x; end $f$",
  'create index gen_indexed on gen (public.indexed(x))',
  "create materialized view seen as select x, public.witness('matview') as w from gen",
  // Made after the rows are loaded: a restore does not fire them.
  "create function public.on_insert() returns trigger language plpgsql as $f$ begin perform public.witness('trigger'); return new; end $f$",
  'create trigger t_evil_insert before insert on t_evil for each row execute function public.on_insert()',
  "create rule gen_insert as on insert to gen do also select public.witness('rule')",
  // Handed to another tenant role (keeper) below, and used by a constraint.
  "create function public.definer() returns boolean language plpgsql security definer as $f$ begin return public.witness('definer'); end $f$",
  "create function public.on_ddl() returns event_trigger language plpgsql as $f$ begin perform public.witness('event-trigger'); end $f$",
  // The database's own settings come with it.
  "alter database app set work_mem = '3MB'",
];

/** What the planted code noted during a restore (pg_restore's sessions), as `what|who|superuser` (t or f). */
const duringRestore = (notes: string[]) =>
  notes
    .filter((n) => n.endsWith('|pg_restore'))
    .map((n) => n.split('|').slice(0, 3).join('|'))
    .sort();

/** Every context that runs during a restore, each as a role without superuser rights. */
const expectedNotes = [`check|${loginRole}|f`, 'definer|keeper|f', `domain|${loginRole}|f`, `generated|${loginRole}|f`, 'index|app|f', 'matview|app|f'];

function expectRestoredWithTenantRights(notes: string[]) {
  const seen = duringRestore(notes);
  expect(seen.filter((n) => !n.endsWith('|f'))).toEqual([]);
  expect([...new Set(seen)]).toEqual(expectedNotes);
}

/** What a restore must report as left out, whatever the path. */
const expectedSkipped = [
  { database: 'app', what: expect.stringMatching(/^CREATE EVENT TRIGGER on_ddl/), reason: expect.stringMatching(/permission denied to create event trigger/) },
  { database: 'app', what: expect.stringMatching(/^CREATE FUNCTION public\.now_internal\(\)/), reason: expect.stringMatching(/permission denied for language internal/) },
  { database: 'app', what: expect.stringMatching(/^CREATE EXTENSION IF NOT EXISTS file_fdw/), reason: expect.stringMatching(/permission denied to create extension/) },
  { database: null, what: 'SUPERUSER of role keeper', reason: expect.any(String) },
  { database: null, what: expect.stringMatching(/^GRANT pg_execute_server_program TO keeper/), reason: expect.stringMatching(/not made through Warden/) },
  { database: null, what: expect.stringMatching(/^ALTER ROLE keeper SET log_statement/), reason: expect.stringMatching(/permission denied to set parameter "log_statement"/) },
];

function expectNothingOnTheHost(instance?: Instance) {
  expect(fs.readdirSync('/tmp').filter((name) => name.startsWith(path.basename(marker)))).toEqual([]);
  if (instance) {
    const data = path.join(world.dataDir, 'instances', instance.id, 'data');
    expect(fs.readdirSync(data).filter((name) => name.startsWith('pwn'))).toEqual([]);
  }
}

async function connect(instance: Instance, user: 'app' | 'postgres', database = 'app'): Promise<Client> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret${user === 'postgres' ? '?role=superuser' : ''}`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: instance.port, user, database, password });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function warnings(instanceId: string): Promise<LogsPage['items']> {
  return ((await world.call('GET', `/instances/${instanceId}/logs?handler=backup&levels=warning`)).json() as LogsPage).items;
}

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'tenant', type: 'pg' });
  await world.service().idle();
  source = await world.instance(res.json().id);
  const owner = await connect(source, 'app');
  for (const statement of planted) await owner.query(statement);
  expect((await world.call('POST', `/instances/${source.id}/roles`, { name: 'keeper', login: true, password: 'Keeper-secret-1', memberOf: ['app'] })).statusCode).toBe(201);

  const superuser = await connect(source, 'postgres');
  await superuser.query('alter function public.definer() owner to keeper');
  await owner.query('alter table t_evil add constraint c_definer check (public.definer())');
  await owner.end();
  // What an operator could do with the superuser's password, and a restore must not bring back.
  await superuser.query('alter role keeper superuser');
  await superuser.query('grant pg_execute_server_program to keeper');
  await superuser.query("alter role keeper set log_statement = 'all'");
  await superuser.query("alter role keeper set work_mem = '7MB'");
  await superuser.query("create function public.now_internal() returns timestamptz language internal stable as 'now'");
  await superuser.query('create extension file_fdw');
  // Last: from here on no DDL runs in the source.
  await superuser.query('create event trigger on_ddl on ddl_command_end execute function public.on_ddl()');
  // The notes made while planting are not the backup's business.
  await superuser.query('select lo_unlink(oid) from pg_largeobject_metadata');
  await superuser.end();

  const taken = await world.call('POST', `/instances/${source.id}/backups/database/backup`, {});
  expect(taken.statusCode).toBe(202);
  await world.backups().idle();
  backup = (await world.backups().find(taken.json().id))!;
  expect(backup).toMatchObject({ status: 'succeeded', error: null });
});

afterAll(async () => {
  await world?.destroy();
  for (const name of fs.readdirSync('/tmp').filter((n) => n.startsWith(path.basename(marker)))) fs.rmSync(path.join('/tmp', name), { force: true });
});

describe("a restore of a tenant's dump", () => {
  it('verifies with matching rows, never as a superuser, and reports what it left out', async () => {
    expect((await world.call('POST', `/instances/${source.id}/backups/${backup.id}/verify`, {})).statusCode).toBe(202);
    await world.backups().idle();
    const listed = (await world.call('GET', `/instances/${source.id}/backups/database`)).json() as PageOf<Backup>;
    const { verification } = listed.items.find((b) => b.id === backup.id)!;
    expect(verification).toMatchObject({ ok: true, detail: expect.stringMatching(/left out: /) });
    expect(verification!.skipped).toEqual(expect.arrayContaining(expectedSkipped.map((s) => expect.objectContaining(s))));
    expectNothingOnTheHost();
  });

  it('clones from the backup with the owners, grants and roles kept, its code run with tenant rights only', async () => {
    const res = await world.call('POST', `/instances/${source.id}/clone`, { name: 'tenant-restored', backupId: backup.id });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const clone = await world.instance(res.json().id);
    expect(clone.status).toBe('running');
    expectNothingOnTheHost(clone);

    const superuser = await connect(clone, 'postgres');
    try {
      const notes = (await superuser.query<{ n: string }>("select convert_from(lo_get(oid), 'UTF8') as n from pg_largeobject_metadata")).rows.map((r) => r.n);
      expectRestoredWithTenantRights(notes);
      // Everything a tenant may make came across, with its owner.
      const owners = await superuser.query<{ name: string; owner: string }>(
        `select c.relname as name, pg_get_userbyid(c.relowner) as owner from pg_class c
          where c.relname in ('t_evil', 'gen', 'gen_indexed', 'seen') order by 1`,
      );
      expect(owners.rows).toEqual(['gen', 'gen_indexed', 'seen', 't_evil'].map((name) => ({ name, owner: 'app' })));
      expect((await superuser.query("select pg_get_userbyid(proowner) as owner from pg_proc where proname = 'definer'")).rows).toEqual([{ owner: 'keeper' }]);
      expect((await superuser.query("select conname from pg_constraint where conrelid = 't_evil'::regclass order by 1")).rows.map((r) => r.conname)).toEqual(['c_definer', 'c_evil']);
      const settings = await superuser.query("select setconfig from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase where d.datname = 'app' and s.setrole = 0");
      expect(settings.rows).toEqual([{ setconfig: ['work_mem=3MB'] }]);
      expect((await superuser.query("select tgname from pg_trigger where tgname = 't_evil_insert'")).rowCount).toBe(1);
      expect((await superuser.query("select rulename from pg_rules where rulename = 'gen_insert'")).rowCount).toBe(1);
      // What only a superuser could make is not there; keeper is a tenant role again.
      expect((await superuser.query('select evtname from pg_event_trigger')).rows).toEqual([]);
      expect((await superuser.query("select proname from pg_proc where proname = 'now_internal'")).rows).toEqual([]);
      expect((await superuser.query("select extname from pg_extension where extname = 'file_fdw'")).rows).toEqual([]);
      const keeper = await superuser.query(
        `select rolsuper, rolcreaterole, rolconfig, pg_has_role('keeper', 'pg_execute_server_program', 'MEMBER') as executes,
                pg_has_role('keeper', 'app', 'MEMBER') as member_of_owner, shobj_description(oid, 'pg_authid') as comment
           from pg_roles where rolname = 'keeper'`,
      );
      expect(keeper.rows).toEqual([{ rolsuper: false, rolcreaterole: false, rolconfig: ['work_mem=7MB'], executes: false, member_of_owner: true, comment: 'Managed by Warden' }]);
      expect((await superuser.query("select rolname from pg_roles where rolname like 'warden_restore%'")).rows).toEqual([]);
    } finally {
      await superuser.end();
    }
    // keeper signs in with the password it had.
    const keeper = new Client({ host: '127.0.0.1', port: clone.port, user: 'keeper', database: 'app', password: 'Keeper-secret-1' });
    await keeper.connect();
    await keeper.end();

    const [told] = await warnings(clone.id);
    expect(told.message).toMatch(new RegExp(`^Restoring backup ${backup.id}: \\d+ item\\(s\\) that need more than the tenant's rights were left out`));
    expect(told.properties.skipped as RestoreSkip[]).toEqual(expect.arrayContaining(expectedSkipped.map((s) => expect.objectContaining(s))));
  });

  it("fills a script's sandbox from the latest backup the same way, and tells the instance's log", async () => {
    const started = await world.call('POST', `/instances/${source.id}/script`, {
      source: 'latest-backup',
      script: [
        "select convert_from(lo_get(oid), 'UTF8') as note from pg_largeobject_metadata;",
        "select rolsuper, pg_has_role('keeper', 'pg_execute_server_program', 'MEMBER') as executes from pg_roles where rolname = 'keeper';",
        'select count(*) from pg_event_trigger;',
      ].join('\n'),
    });
    expect(started.statusCode).toBe(202);
    await world.app().scripts.idle();
    const run = (await world.call('GET', `/instances/${source.id}/script/runs/${started.json().id}`)).json() as ScriptRun;
    expect(run).toMatchObject({ status: 'succeeded', copiedFrom: 'backup', backupId: backup.id });
    expectRestoredWithTenantRights(run.results[0].rows!.map(([note]) => note!));
    expect(run.results[1].rows).toEqual([['f', 'f']]);
    expect(run.results[2].rows).toEqual([['0']]);
    expectNothingOnTheHost();

    const told = (await warnings(source.id)).find((entry) => entry.properties.runId === run.id);
    expect(told?.properties).toMatchObject({ backupId: backup.id });
    expect(told!.properties.skipped as RestoreSkip[]).toEqual(expect.arrayContaining(expectedSkipped.map((s) => expect.objectContaining(s))));
  });
});
