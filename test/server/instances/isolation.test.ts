import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { instanceUserName } from '../../../server/engines/instanceUsers';
import { instanceWorld, type InstanceWorld } from './world';

// Each instance under its own system user when the server runs as root (DESIGN §11 Processes):
// real PostgreSQL 15 and etcd processes, checked through /proc and by reading as another uid.

jest.setTimeout(300_000);

const pgBin = '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

let world: InstanceWorld;
let alpha: Instance;
let beta: Instance;
let kv: Instance;

const dirOf = (instance: Instance) => path.join(world.dataDir, 'instances', instance.id);

/** The real and effective uid of a process, as the kernel reports them. */
function processUids(pid: number): number[] {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'))!;
  return line.split(/\s+/).slice(1, 3).map(Number);
}

/** The passwd entry of a user, or null when getent does not know it. */
function passwd(name: string): { uid: number; gid: number; comment: string } | null {
  const result = spawnSync('getent', ['passwd', name]);
  if (result.status !== 0) return null;
  const [, , uid, gid, comment] = result.stdout.toString().trim().split(':');
  return { uid: Number(uid), gid: Number(gid), comment };
}

/** Runs a command as another uid and gid, as a process of that instance would. */
function runAs(owner: { uid: number; gid: number }, command: string, args: string[]) {
  const result = spawnSync(command, args, { uid: owner.uid, gid: owner.gid, cwd: '/' });
  return { status: result.status, stderr: result.stderr.toString() };
}

async function created(body: { name: string; type: 'pg' | 'etcd' }): Promise<Instance> {
  const res = await world.call('POST', '/instances', body);
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  return world.instance(res.json().id);
}

async function sql<T>(instance: Instance, text: string): Promise<T[]> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database: 'postgres', password });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

async function operate(instance: Instance, kind: 'start' | 'stop'): Promise<Instance> {
  expect((await world.call('POST', `/instances/${instance.id}/${kind}`, {})).statusCode).toBe(202);
  await world.service().idle();
  return world.instance(instance.id);
}

async function takeBackup(instance: Instance, kind: 'database' | 'files'): Promise<Backup> {
  const res = await world.call('POST', `/instances/${instance.id}/backups/${kind}/backup`, {});
  expect(res.statusCode).toBe(202);
  await world.backups().idle();
  const page = (await world.call('GET', `/instances/${instance.id}/backups/${kind}?pageSize=100`)).json() as PageOf<Backup>;
  return page.items.find((b) => b.id === res.json().id)!;
}

beforeAll(async () => {
  if (!asRoot) return;
  world = await instanceWorld();
  alpha = await created({ name: 'alpha', type: 'pg' });
  beta = await created({ name: 'beta', type: 'pg' });
  kv = await created({ name: 'kv-main', type: 'etcd' });
  await sql(alpha, "create table notes as select g as id, 'note ' || g as body from generate_series(1, 500) g");
});

afterAll(async () => {
  if (world) await world.destroy();
});

describeAsRoot('instances under their own system users', () => {
  it('run each engine as its own user, which owns its 0700 folder', async () => {
    const uids = new Set<number>();
    for (const instance of [alpha, beta, kv]) {
      expect(instance.status).toBe('running');
      const user = passwd(instanceUserName(instance.id));
      expect(user).toMatchObject({ comment: `Warden instance ${instance.id}` });
      expect(processUids(await world.enginePid(instance.id))).toEqual([user!.uid, user!.uid]);
      const folder = fs.statSync(dirOf(instance));
      expect({ uid: folder.uid, mode: folder.mode & 0o777 }).toEqual({ uid: user!.uid, mode: 0o700 });
      uids.add(user!.uid);
    }
    expect(uids.size).toBe(3);
    expect(uids.has(0)).toBe(false);
    expect(uids.has(passwd('postgres')!.uid)).toBe(false);
  });

  it('keep the superuser password root-owned 0600, out of the engine user’s reach', () => {
    const secret = fs.statSync(path.join(dirOf(alpha), 'superuser.password'));
    expect({ uid: secret.uid, mode: secret.mode & 0o777 }).toEqual({ uid: 0, mode: 0o600 });
    const own = passwd(instanceUserName(alpha.id))!;
    expect(runAs(own, 'cat', [path.join(dirOf(alpha), 'superuser.password')]).stderr).toMatch(/Permission denied/);
  });

  it("keep one instance's processes out of another's folder", () => {
    const alphaUser = passwd(instanceUserName(alpha.id))!;
    const kvUser = passwd(instanceUserName(kv.id))!;
    // Its own folder is readable to it: the refusals below are about the other folders.
    expect(runAs(alphaUser, 'cat', [path.join(dirOf(alpha), 'data', 'PG_VERSION')])).toMatchObject({ status: 0 });

    const listing = runAs(alphaUser, 'ls', [dirOf(beta)]);
    expect(listing.status).not.toBe(0);
    expect(listing.stderr).toMatch(/Permission denied/);
    const reading = runAs(alphaUser, 'cat', [path.join(dirOf(beta), 'data', 'PG_VERSION')]);
    expect(reading.status).not.toBe(0);
    expect(reading.stderr).toMatch(/Permission denied/);
    expect(runAs(alphaUser, 'ls', [path.join(dirOf(kv), 'data')]).stderr).toMatch(/Permission denied/);
    expect(runAs(kvUser, 'cat', [path.join(dirOf(alpha), 'data', 'postgresql.conf')]).stderr).toMatch(/Permission denied/);
  });

  it('take, verify and file-back-up with the instance users, and remove the scratch user after verifying', async () => {
    const database = await takeBackup(alpha, 'database');
    expect(database).toMatchObject({ status: 'succeeded' });
    expect((await world.call('POST', `/instances/${alpha.id}/backups/${database.id}/verify`, {})).statusCode).toBe(202);
    await world.backups().idle();
    const verified = (await world.call('GET', `/instances/${alpha.id}/backups/database?pageSize=100`)).json().items.find((b: Backup) => b.id === database.id);
    expect(verified.verification).toMatchObject({ ok: true });
    expect(passwd(instanceUserName(`scratch-${database.id}`))).toBeNull();

    const snapshot = await takeBackup(kv, 'database');
    expect(snapshot).toMatchObject({ status: 'succeeded' });

    const files = await takeBackup(beta, 'files');
    expect(files).toMatchObject({ status: 'succeeded' });
    const listing = execFileSync('tar', ['-tf', path.join(world.dataDir, 'backups', beta.id, `${files.id}.tar`)]).toString();
    expect(listing).toMatch(/^data\/postgresql\.conf$/m);
  });

  it('clones a stopped instance into a copy run by the clone’s own user', async () => {
    expect((await operate(alpha, 'stop')).status).toBe('stopped');
    const res = await world.call('POST', `/instances/${alpha.id}/clone`, { name: 'alpha-copy' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy.status).toBe('running');
    const copyUser = passwd(instanceUserName(copy.id))!;
    expect(processUids(await world.enginePid(copy.id))).toEqual([copyUser.uid, copyUser.uid]);
    expect(copyUser.uid).not.toBe(passwd(instanceUserName(alpha.id))!.uid);
    // Every file of the copy is its user's: none is left to the source's user.
    const strangers = execFileSync('find', [dirOf(copy), '-not', '-user', String(copyUser.uid), '-not', '-user', '0']).toString().trim();
    expect(strangers).toBe('');
    expect(await sql<{ n: number }>(copy, 'select count(*)::int as n from notes')).toEqual([{ n: 500 }]);
    expect((await operate(alpha, 'start')).status).toBe('running');
  });

  it('keeps an instance the postgres user runs (made before per-instance users) and moves it at its next start', async () => {
    const postgres = passwd('postgres')!;
    const dir = dirOf(beta);
    expect((await operate(beta, 'stop')).status).toBe('stopped');
    // The old layout: a root-owned 0711 instance folder, everything else the postgres user's.
    execFileSync('find', [dir, '-mindepth', '1', '-not', '-user', '0', '-exec', 'chown', '-h', `${postgres.uid}:${postgres.gid}`, '{}', '+']);
    fs.chownSync(dir, 0, 0);
    fs.chmodSync(dir, 0o711);
    const started = spawnSync(path.join(pgBin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-w', '-l', path.join(dir, 'logs', 'startup.log'), 'start'], {
      uid: postgres.uid,
      gid: postgres.gid,
      cwd: '/',
    });
    expect(started.stderr.toString()).toBe('');
    expect(started.status).toBe(0);

    await world.restartServer();
    const adopted = await world.instance(beta.id);
    expect(adopted.status).toBe('running');
    const legacyPid = await world.enginePid(beta.id);
    expect(processUids(legacyPid)).toEqual([postgres.uid, postgres.uid]);

    // Stopped as the user that runs it, then started as its own.
    expect((await operate(beta, 'stop')).status).toBe('stopped');
    const moved = await operate(beta, 'start');
    expect(moved.status).toBe('running');
    const own = passwd(instanceUserName(beta.id))!;
    expect(processUids(await world.enginePid(beta.id))).toEqual([own.uid, own.uid]);
    const folder = fs.statSync(dir);
    expect({ uid: folder.uid, mode: folder.mode & 0o777 }).toEqual({ uid: own.uid, mode: 0o700 });
    expect(execFileSync('find', [dir, '-user', String(postgres.uid)]).toString().trim()).toBe('');
    expect(fs.statSync(path.join(dir, 'superuser.password')).uid).toBe(0);
  });

  it('removes the system user with the instance', async () => {
    const name = instanceUserName(kv.id);
    expect(passwd(name)).not.toBeNull();
    expect((await world.call('DELETE', `/instances/${kv.id}?force=true`)).statusCode).toBe(200);
    expect(spawnSync('getent', ['passwd', name]).status).not.toBe(0);
    expect(fs.existsSync(dirOf(kv))).toBe(false);
  });
});

describe('instance user names', () => {
  it('are warden- and the first 12 hex digits of the id, valid for useradd', () => {
    expect(instanceUserName('761e8420-5ed4-4ba5-b849-721653460c05')).toBe('warden-761e84205ed4');
    const scratch = instanceUserName('scratch-761e8420-5ed4-4ba5-b849-721653460c05');
    expect(scratch).toMatch(/^warden-[0-9a-f]{12}$/);
    expect(scratch).not.toBe('warden-761e84205ed4');
  });
});
