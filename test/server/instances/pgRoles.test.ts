import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { Client } from 'pg';
import type { Database, DbRole } from '../../../contracts/databases';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { addMembers, createGroup } from '../../../server/db/groups';
import { expectProblem } from '../helpers';
import { instanceWorld, type InstanceWorld } from './world';

// The owner role, the connection calls and the databases and roles API (DESIGN §10, §11), against
// a real PostgreSQL 15: what a member of the instance's group gets, and what they never get.

jest.setTimeout(300_000);

let world: InstanceWorld;
let instance: Instance;
let member: string;
let outsider: string;

const psqlBin = '/usr/lib/postgresql/15/bin/psql';

/** psql over TCP, as an operator would run it: its exit status and what it printed. */
function psql(port: number, user: string, password: string, database: string, sql: string) {
  const run = spawnSync(psqlBin, ['-X', '-q', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], {
    env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' },
    encoding: 'utf8',
  });
  return { ok: run.status === 0, out: run.stdout.trim(), err: run.stderr.trim() };
}

async function secret(id: string, cookie?: string, query = ''): Promise<string> {
  const res = await world.call('POST', `/instances/${id}/connection/secret${query}`, {}, cookie);
  expect(res.statusCode).toBe(200);
  return res.json().password;
}

async function superuser(target: Instance, database = 'postgres'): Promise<Client> {
  const client = new Client({ host: '127.0.0.1', port: target.port, user: 'postgres', database, password: await secret(target.id, undefined, '?role=superuser') });
  await client.connect();
  return client;
}

async function ownerAttributes(target: Instance) {
  const client = await superuser(target);
  try {
    const { rows } = await client.query(
      `select rolsuper, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls,
              pg_has_role('app', 'pg_read_server_files', 'MEMBER') as reads,
              pg_has_role('app', 'pg_write_server_files', 'MEMBER') as writes,
              pg_has_role('app', 'pg_execute_server_program', 'MEMBER') as executes,
              (select pg_get_userbyid(datdba) from pg_database where datname = 'app') as database_owner
         from pg_roles where rolname = 'app'`,
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

const ownerOnly = {
  rolsuper: false,
  rolcreaterole: false,
  rolcreatedb: true,
  rolcanlogin: true,
  rolreplication: false,
  rolbypassrls: false,
  reads: false,
  writes: false,
  executes: false,
  database_owner: 'app',
};

beforeAll(async () => {
  world = await instanceWorld();
  member = await world.cookieFor('member@example.com');
  outsider = await world.cookieFor('outsider@example.com');
  const team = await createGroup(world.db, { name: 'team' }, new Date());
  const others = await createGroup(world.db, { name: 'others' }, new Date());
  await addMembers(world.db, team.id, [await world.userId('member@example.com')], new Date());
  await addMembers(world.db, others.id, [await world.userId('outsider@example.com')], new Date());
  const res = await world.call('POST', '/instances', { name: 'owned', type: 'pg', groupId: team.id });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  instance = await world.instance(res.json().id);
  expect(instance.status).toBe('running');
});

afterAll(async () => {
  await world.destroy();
});

describe('the owner role of a PostgreSQL instance', () => {
  it('is a login role with CREATEDB only, owns the default database, and its password file is 0600', async () => {
    expect(await ownerAttributes(instance)).toEqual(ownerOnly);
    const file = `${world.dataDir}/instances/${instance.id}/owner.password`;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is what a group member connects as: psql with the revealed password creates a table', async () => {
    const connection = await world.call('GET', `/instances/${instance.id}/connection`, undefined, member);
    expect(connection.json()).toEqual({
      host: '127.0.0.1',
      port: instance.port,
      user: 'app',
      database: 'app',
      uri: `postgresql://app@127.0.0.1:${instance.port}/app`,
      command: `psql 'postgresql://app@127.0.0.1:${instance.port}/app'`,
      endpoints: [`127.0.0.1:${instance.port}`],
    });
    const password = await secret(instance.id, member);
    const made = psql(instance.port, 'app', password, 'app', "create table notes (id int primary key, body text); insert into notes values (1, 'hello'); select count(*) from notes");
    expect(made).toMatchObject({ ok: true, out: '1' });
    const [entry] = await world.auditOf('instances.connection.secret');
    expect(entry).toMatchObject({ outcome: 'success', target: instance.id, user_id: await world.userId('member@example.com') });
  });

  it("refuses a member the superuser's password (403, audited as dangerous); admins get it", async () => {
    const refused = await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {}, member);
    expect(expectProblem(refused, 403).detail).toMatch(/Only admins/);
    const [entry] = await world.auditOf('instances.connection.secret.superuser');
    expect(entry).toMatchObject({ outcome: 'failure', target: instance.id });
    expect(JSON.parse(entry.detail!)).toMatchObject({ dangerous: true, status: 403 });
    const password = await secret(instance.id, undefined, '?role=superuser');
    expect(psql(instance.port, 'postgres', password, 'postgres', 'select rolsuper from pg_roles where rolname = current_user')).toMatchObject({ ok: true, out: 't' });
    expect(password).not.toBe(await secret(instance.id, member));
  });

  it("answers another group's member 404 on every connection, database and role call", async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/connection'],
      ['POST', '/connection/secret', {}],
      ['POST', '/connection/rotate', {}],
      ['GET', '/databases'],
      ['POST', '/databases', { name: 'sneaky' }],
      ['DELETE', '/databases/app'],
      ['GET', '/roles'],
      ['POST', '/roles', { name: 'sneaky', login: true }],
      ['PUT', '/roles/app', { login: false }],
      ['DELETE', '/roles/app'],
    ];
    for (const [method, path, body] of calls) {
      const res = await world.call(method as 'GET', `/instances/${instance.id}${path}`, body, outsider);
      expect(`${method} ${path} ${res.statusCode}`).toBe(`${method} ${path} 404`);
    }
    const databases = (await world.call('GET', `/instances/${instance.id}/databases`)).json() as Database[];
    expect(databases.map((d) => d.name)).not.toContain('sneaky');
  });

  it('rotates the owner password: the old one stops working, the new one works', async () => {
    const old = await secret(instance.id, member);
    const res = await world.call('POST', `/instances/${instance.id}/connection/rotate`, {}, member);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().password as string;
    expect(fresh).not.toBe(old);
    const refused = psql(instance.port, 'app', old, 'app', 'select 1');
    expect(refused.ok).toBe(false);
    expect(refused.err).toMatch(/password authentication failed for user "app"/);
    expect(psql(instance.port, 'app', fresh, 'app', 'select count(*) from notes')).toMatchObject({ ok: true, out: '1' });
    expect(await secret(instance.id, member)).toBe(fresh);
    expect((await world.auditOf('instances.connection.rotate'))[0]).toMatchObject({ outcome: 'success', target: instance.id });
    // The password never reaches the instance's log, whatever its logging says.
    const logs = fs.readdirSync(`${world.dataDir}/instances/${instance.id}/logs`).map((f) => fs.readFileSync(`${world.dataDir}/instances/${instance.id}/logs/${f}`, 'utf8'));
    expect(logs.join('\n')).not.toContain(fresh);
  });
});

describe('databases through the API', () => {
  it('creates a database the owner can connect to, listed with its owner and size', async () => {
    const res = await world.call('POST', `/instances/${instance.id}/databases`, { name: 'reports' }, member);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'reports', owner: 'app', isDefault: false, system: false });
    const password = await secret(instance.id, member);
    expect(psql(instance.port, 'app', password, 'reports', 'create table r (x int); select current_database()')).toMatchObject({ ok: true, out: 'reports' });
    const list = (await world.call('GET', `/instances/${instance.id}/databases`, undefined, member)).json() as Database[];
    expect(list.map((d) => d.name)).toEqual(['app', 'postgres', 'reports']);
    expect(list.find((d) => d.name === 'app')).toMatchObject({ owner: 'app', isDefault: true });
    expect(list.find((d) => d.name === 'postgres')).toMatchObject({ system: true });
    expect(list.every((d) => d.sizeBytes > 0)).toBe(true);
    expect((await world.auditOf('instances.databases.create'))[0]).toMatchObject({ outcome: 'success', target: instance.id });
  });

  it('refuses bad names, reserved names, duplicates and owners Warden did not make', async () => {
    const bad = await world.call('POST', `/instances/${instance.id}/databases`, { name: 'Robert"); drop table x;--' }, member);
    expect(expectProblem(bad, 400).errors).toHaveProperty('name');
    expect(expectProblem(await world.call('POST', `/instances/${instance.id}/databases`, { name: 'template1' }, member), 400).errors?.name[0]).toMatch(/reserved/);
    expect(expectProblem(await world.call('POST', `/instances/${instance.id}/databases`, { name: 'reports' }, member), 409).detail).toMatch(/already exists/);
    const superOwned = await world.call('POST', `/instances/${instance.id}/databases`, { name: 'mine', owner: 'postgres' }, member);
    expect(expectProblem(superOwned, 400).errors?.owner[0]).toMatch(/not made through Warden/);
    const names = ((await world.call('GET', `/instances/${instance.id}/databases`)).json() as Database[]).map((d) => d.name);
    expect(names).not.toContain('mine');
  });

  it('drops a database in use, ending its connections, and never the default or system ones', async () => {
    const password = await secret(instance.id, member);
    const open = new Client({ host: '127.0.0.1', port: instance.port, user: 'app', database: 'reports', password });
    open.on('error', () => undefined);
    await open.connect();
    const res = await world.call('DELETE', `/instances/${instance.id}/databases/reports`, undefined, member);
    expect(res.statusCode).toBe(204);
    await open.end().catch(() => undefined);
    const names = ((await world.call('GET', `/instances/${instance.id}/databases`)).json() as Database[]).map((d) => d.name);
    expect(names).toEqual(['app', 'postgres']);
    for (const name of ['app', 'postgres', 'template1']) {
      const refused = await world.call('DELETE', `/instances/${instance.id}/databases/${name}`, undefined, member);
      expect(expectProblem(refused, 409).detail).toMatch(/cannot be dropped/);
    }
    expectProblem(await world.call('DELETE', `/instances/${instance.id}/databases/nosuch`, undefined, member), 404);
  });
});

describe('roles through the API', () => {
  const roles = async () => (await world.call('GET', `/instances/${instance.id}/roles`, undefined, member)).json() as DbRole[];

  it('creates a login role with a password and membership of the owner, with no other attribute', async () => {
    const res = await world.call('POST', `/instances/${instance.id}/roles`, { name: 'reader', login: true, password: 'reader-secret-1', memberOf: ['app'] }, member);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ name: 'reader', login: true, superuser: false, owner: false, managed: true, memberOf: ['app'] });
    expect(psql(instance.port, 'reader', 'reader-secret-1', 'app', 'select count(*) from notes')).toMatchObject({ ok: true, out: '1' });
    const client = await superuser(instance);
    const { rows } = await client.query("select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls from pg_roles where rolname = 'reader'");
    await client.end();
    expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolreplication: false, rolbypassrls: false });
    const list = await roles();
    expect(list.find((r) => r.name === 'app')).toMatchObject({ owner: true, superuser: false });
    expect(list.find((r) => r.name === 'postgres')).toMatchObject({ superuser: true, managed: false });
    expect(list.some((r) => r.name.startsWith('pg_'))).toBe(false);
    const [entry] = await world.auditOf('instances.roles.create');
    expect(entry.outcome).toBe('success');
    expect(entry.detail).not.toContain('reader-secret-1');
  });

  it('refuses memberships in pg_* roles, the superuser or roles Warden did not make, and reserved names', async () => {
    for (const memberOf of [['pg_execute_server_program'], ['pg_read_server_files'], ['postgres']]) {
      const res = await world.call('POST', `/instances/${instance.id}/roles`, { name: 'climber', login: true, memberOf }, member);
      expect(expectProblem(res, 400).errors?.memberOf[0]).toMatch(/not made through Warden/);
    }
    const grant = await world.call('PUT', `/instances/${instance.id}/roles/reader`, { memberOf: ['app', 'pg_execute_server_program'] }, member);
    expectProblem(grant, 400);
    for (const name of ['pg_evil', 'postgres', 'app', 'public', 'warden_restore_loader']) {
      const res = await world.call('POST', `/instances/${instance.id}/roles`, { name, login: true }, member);
      expect(expectProblem(res, 400).errors?.name[0]).toMatch(/reserved/);
    }
    expectProblem(await world.call('POST', `/instances/${instance.id}/roles`, { name: 'Evil"Role', login: true }, member), 400);
    const list = await roles();
    expect(list.map((r) => r.name)).not.toContain('climber');
    expect(list.find((r) => r.name === 'reader')?.memberOf).toEqual(['app']);
    const client = await superuser(instance);
    const { rows } = await client.query("select pg_has_role('reader', 'pg_execute_server_program', 'MEMBER') as executes");
    await client.end();
    expect(rows[0].executes).toBe(false);
  });

  it('renames a role, sets its password and login, and never touches the owner or the superuser', async () => {
    const res = await world.call('PUT', `/instances/${instance.id}/roles/reader`, { newName: 'viewer', password: 'viewer-secret-2' }, member);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'viewer', login: true, memberOf: ['app'] });
    expect(psql(instance.port, 'viewer', 'viewer-secret-2', 'app', 'select 1')).toMatchObject({ ok: true });
    expect((await world.call('PUT', `/instances/${instance.id}/roles/viewer`, { login: false }, member)).json()).toMatchObject({ login: false });
    expect(psql(instance.port, 'viewer', 'viewer-secret-2', 'app', 'select 1').err).toMatch(/not permitted to log in/);
    for (const name of ['app', 'postgres']) {
      expectProblem(await world.call('PUT', `/instances/${instance.id}/roles/${name}`, { newName: 'renamed' }, member), 409);
      expectProblem(await world.call('DELETE', `/instances/${instance.id}/roles/${name}`, undefined, member), 409);
    }
    expectProblem(await world.call('PUT', `/instances/${instance.id}/roles/nosuch`, { login: true }, member), 404);
  });

  it('drops a role, handing what it owns to the owner role', async () => {
    const made = await world.call('POST', `/instances/${instance.id}/databases`, { name: 'viewer_db', owner: 'viewer' }, member);
    expect(made.json()).toMatchObject({ owner: 'viewer' });
    expect((await world.call('DELETE', `/instances/${instance.id}/roles/viewer`, undefined, member)).statusCode).toBe(204);
    expect((await roles()).map((r) => r.name)).not.toContain('viewer');
    const databases = (await world.call('GET', `/instances/${instance.id}/databases`)).json() as Database[];
    expect(databases.find((d) => d.name === 'viewer_db')).toMatchObject({ owner: 'app' });
    expect((await world.auditOf('instances.roles.delete'))[0]).toMatchObject({ outcome: 'success' });
  });
});

describe('copies and restarts', () => {
  it('gives a clone its own owner and superuser passwords, with the same roles and data', async () => {
    const res = await world.call('POST', `/instances/${instance.id}/clone`, { name: 'owned-copy' }, member);
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy.status).toBe('running');
    const owner = await secret(copy.id, member);
    expect(owner).not.toBe(await secret(instance.id, member));
    expect(await secret(copy.id, undefined, '?role=superuser')).not.toBe(await secret(instance.id, undefined, '?role=superuser'));
    expect(psql(copy.port, 'app', owner, 'app', 'select body from notes')).toMatchObject({ ok: true, out: 'hello' });
    expect(fs.existsSync(`${world.dataDir}/instances/${copy.id}/superuser.password.previous`)).toBe(false);
    expect(await ownerAttributes(copy)).toEqual(ownerOnly);
    expect((await world.call('DELETE', `/instances/${copy.id}?force=true`)).statusCode).toBe(200);
  });

  it('restores a backup into a new instance with its roles and a fresh owner password', async () => {
    await world.call('POST', `/instances/${instance.id}/roles`, { name: 'kept', login: true, password: 'kept-secret-3' }, member);
    const taken = await world.call('POST', `/instances/${instance.id}/backups/database/backup`, {}, member);
    expect(taken.statusCode).toBe(202);
    await world.backups().idle();
    const page = (await world.call('GET', `/instances/${instance.id}/backups/database`)).json() as PageOf<Backup>;
    expect(page.items[0]).toMatchObject({ status: 'succeeded', error: null });
    const res = await world.call('POST', `/instances/${instance.id}/clone`, { name: 'owned-restored', backupId: page.items[0].id }, member);
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const restored = await world.instance(res.json().id);
    expect(restored.status).toBe('running');
    const owner = await secret(restored.id, member);
    expect(owner).not.toBe(await secret(instance.id, member));
    expect(psql(restored.port, 'app', owner, 'app', 'select body from notes')).toMatchObject({ ok: true, out: 'hello' });
    expect(psql(restored.port, 'kept', 'kept-secret-3', 'app', 'select 1')).toMatchObject({ ok: true });
    expect(await ownerAttributes(restored)).toEqual(ownerOnly);
    expect((await world.call('DELETE', `/instances/${restored.id}?force=true`)).statusCode).toBe(200);
  });

  it('sets a tampered owner role right at the next start', async () => {
    const client = await superuser(instance);
    await client.query('alter role app superuser createrole');
    await client.query('grant pg_execute_server_program to app');
    await client.end();
    expect((await world.call('POST', `/instances/${instance.id}/restart`, {}, member)).statusCode).toBe(202);
    await world.service().idle();
    expect(await ownerAttributes(instance)).toEqual(ownerOnly);
  });

  it('answers 409 while the instance is stopped, and for etcd instances', async () => {
    expect((await world.call('POST', `/instances/${instance.id}/stop`, {}, member)).statusCode).toBe(202);
    await world.service().idle();
    expect(expectProblem(await world.call('GET', `/instances/${instance.id}/databases`, undefined, member), 409).detail).toMatch(/not running/);
    expect(expectProblem(await world.call('POST', `/instances/${instance.id}/roles`, { name: 'late', login: true }, member), 409).detail).toMatch(/not running/);
    expect(expectProblem(await world.call('POST', `/instances/${instance.id}/connection/rotate`, {}, member), 409).detail).toMatch(/not running/);
    // The password is still there to read while stopped.
    expect(await secret(instance.id, member)).toMatch(/^\S{20,}$/);

    const etcd = await world.call('POST', '/instances', { name: 'keys', type: 'etcd' });
    expect(etcd.statusCode).toBe(202);
    expect(expectProblem(await world.call('GET', `/instances/${etcd.json().id}/databases`), 409).detail).toMatch(/Only PostgreSQL/);
    expect(expectProblem(await world.call('GET', `/instances/${etcd.json().id}/roles`), 409).detail).toMatch(/Only PostgreSQL/);
    await world.service().idle();
    expect((await world.call('DELETE', `/instances/${etcd.json().id}?force=true`)).statusCode).toBe(200);
  });
});
