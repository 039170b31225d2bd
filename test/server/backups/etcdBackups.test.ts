import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import type { AuditEntry } from '../../../contracts/users';
import { etcdctl as etcdctlAs, expectRefused, secretOf } from '../engines/etcdClient';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Database and file backups of a real etcd 3.4 member: a snapshot taken through the API, its revision
// and key count checked against etcdctl, verified in a scratch member and restored into a new one.

jest.setTimeout(120_000);

let world: InstanceWorld;
let kv: Instance;

const member = (instance: Instance) => ({ port: instance.port, dir: path.join(world.dataDir, 'instances', instance.id) });
/** etcdctl on the instance, as its owner. */
const etcdctl = (instance: Instance, args: string[], input?: string) => etcdctlAs(member(instance), args, { input });

/** Puts the keys in transactions of 100 (etcd allows 128 operations per transaction by default). */
function putKeys(instance: Instance, entries: [string, string][]) {
  for (let i = 0; i < entries.length; i += 100) {
    const puts = entries.slice(i, i + 100).map(([key, value]) => `put ${key} ${JSON.stringify(value)}`);
    // An empty compare block, the puts on success, nothing on failure.
    expect(etcdctl(instance, ['txn'], `\n${puts.join('\n')}\n\n\n`)).toMatch(/^SUCCESS/);
  }
}

/** Count and revision as etcdctl reports them (etcdctl 3.4 has no --count-only; a range's count ignores --limit). */
function counted(instance: Instance): { count: number; revision: number } {
  const out = JSON.parse(etcdctl(instance, ['get', '', '--from-key', '--limit=1', '-w', 'json']));
  return { count: out.count ?? 0, revision: out.header.revision };
}

/** Every key with its value, decoded from etcdctl's base64 JSON. */
function keyValues(instance: Instance): Map<string, string> {
  const out = JSON.parse(etcdctl(instance, ['get', '', '--from-key', '-w', 'json']));
  const decode = (text: string) => Buffer.from(text, 'base64').toString('utf8');
  return new Map((out.kvs ?? []).map((kv: { key: string; value: string }) => [decode(kv.key), decode(kv.value)]));
}

async function takeBackup(instance: Instance, kind: 'database' | 'files'): Promise<Backup> {
  const res = await world.call('POST', `/instances/${instance.id}/backups/${kind}/backup`, {});
  expect(res.statusCode).toBe(202);
  await world.backups().idle();
  const page = (await world.call('GET', `/instances/${instance.id}/backups/${kind}?pageSize=100`)).json() as PageOf<Backup>;
  return page.items.find((b) => b.id === res.json().id)!;
}

const storedFile = (backup: Backup) => path.join(world.dataDir, 'backups', backup.instanceId, `${backup.id}.tar`);
const listing = (backup: Backup) => execFileSync('tar', ['-tf', storedFile(backup)]).toString().split('\n').filter(Boolean);

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'kv-backed', type: 'etcd' });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  kv = await world.instance(res.json().id);
  expect(kv.status).toBe('running');
});

afterAll(() => world.destroy());

describe('a database backup of etcd', () => {
  let backup: Backup;
  let atBackup: Map<string, string>;

  it('snapshots the member and records the revision and key count etcdctl reports', async () => {
    const entries = Array.from({ length: 300 }, (_, i): [string, string] => [`/app/config/${String(i).padStart(3, '0')}`, `value-${i * 7}`]);
    putKeys(kv, entries);
    // Overwritten keys raise the revision without adding keys.
    putKeys(kv, [['/app/config/000', 'changed'], ['/app/flag', 'on']]);
    const before = counted(kv);
    expect(before.count).toBe(301);
    atBackup = keyValues(kv);

    backup = await takeBackup(kv, 'database');

    expect(backup).toMatchObject({ kind: 'database', status: 'succeeded', error: null, instanceName: 'kv-backed' });
    expect(backup.format).toMatch(/^warden-etcd-v1/);
    expect(backup.contents).toMatchObject({ revision: before.revision, keyCount: 301 });
    expect(listing(backup).sort()).toEqual(['manifest.json', 'snapshot.db']);
  });

  it('verifies by restoring into a scratch member with the same revision and key count', async () => {
    const res = await world.call('POST', `/instances/${kv.id}/backups/${backup.id}/verify`, {});
    expect(res.statusCode).toBe(202);
    await world.backups().idle();
    const verified = (await world.backups().find(backup.id))!;
    expect(verified.verification).toMatchObject({ ok: true, detail: expect.stringMatching(`revision ${backup.contents!.revision}, 301 key\\(s\\)`) });
  });

  it('restores into a new running member holding exactly the keys and values of backup time', async () => {
    putKeys(kv, [['/app/config/001', 'after the backup'], ['/app/late', 'after the backup']]);

    const res = await world.call('POST', `/instances/${kv.id}/clone`, { name: 'kv-restored', backupId: backup.id });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    await world.backups().idle();

    const restored = await world.instance(res.json().id);
    expect(restored).toMatchObject({ status: 'running', statusReason: null, type: 'etcd' });
    expect(keyValues(restored)).toEqual(atBackup);
    expect(counted(restored).revision).toBe(backup.contents!.revision);
    // The source kept what was written after the backup.
    expect(keyValues(kv).get('/app/late')).toBe('after the backup');

    // The snapshot brought the source's users back, but the new member has passwords of its own.
    for (const user of ['owner', 'root'] as const) {
      expect(secretOf(member(restored), user)).not.toBe(secretOf(member(kv), user));
      const theSources = { user: user === 'owner' ? 'app' : 'root', password: secretOf(member(kv), user) };
      expectRefused(member(restored), theSources, ['get', '/app/flag'], /authentication failed/);
    }
    expectRefused(member(restored), 'nobody', ['get', '/app/flag'], /user name is empty/);
    expectRefused(member(restored), 'owner', ['auth', 'disable'], /permission denied/);
    expect(etcdctlAs(member(restored), ['user', 'list'], { as: 'root' })).toBe('app\nroot\n');

    // The audit trail names it a restore of the backup, into the new instance, and names the backup.
    const audit = (await world.call('GET', '/admin/audit?action=backups.restore')).json() as PageOf<AuditEntry>;
    expect(audit.items).toEqual([
      expect.objectContaining({
        action: 'backups.restore',
        target: backup.id,
        targetName: `database backup of ${kv.name}, ${backup.startedAt}`,
        targetLink: `/instances/${kv.id}/backups/database`,
        outcome: 'success',
        detail: { instanceId: kv.id, newInstanceName: 'kv-restored', newInstanceId: restored.id },
      }),
    ]);
    expect((await world.call('GET', '/admin/audit?action=instances.clone')).json().items).toEqual([]);
  });
});

describe('a file backup of etcd', () => {
  it('holds the flags and logs of the running member, without its data folder', async () => {
    const backup = await takeBackup(kv, 'files');
    expect(backup).toMatchObject({ kind: 'file', status: 'succeeded', contents: { dataDirectory: false } });
    const files = listing(backup);
    expect(files).toEqual(expect.arrayContaining(['manifest.json', 'etcd.flags.json', 'logs/', 'logs/etcd.log']));
    expect(files.filter((f) => f.startsWith('data'))).toEqual([]);
  });
});
