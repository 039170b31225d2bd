import { Client } from 'pg';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// Faults during a database backup of real engines (DESIGN §11: the server survives any engine
// failure): stopping or restarting the instance through the API, or the engine dying (SIGKILL),
// while its backup or a clone runs. The server stays up, no cut-off backup is listed as succeeded,
// no operation is left running, and the next backup succeeds. An error that escaped to the process
// (a pg client's unhandled 'error' event) fails the test it happens in: jest reports it there.

jest.setTimeout(600_000);

let world: InstanceWorld;
let pg: Instance;

async function connect(instance: Instance): Promise<Client> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).json() as { password: string };
  const client = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database: 'postgres', password });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function backupOf(instance: Instance, id: string): Promise<Backup> {
  const page = (await world.call('GET', `/instances/${instance.id}/backups/database?pageSize=200`)).json() as PageOf<Backup>;
  return page.items.find((b) => b.id === id)!;
}

/** Starts a database backup and answers once pg_dump is writing (the backup reports bytes). */
async function backupUnderway(instance: Instance): Promise<string> {
  const res = await world.call('POST', `/instances/${instance.id}/backups/database/backup`, {});
  expect(res.statusCode).toBe(202);
  const id = res.json().id as string;
  for (;;) {
    const progress = world.events('BackupProgress').filter((e) => e.backupId === id);
    if (progress.some((p) => p.bytes > 0)) return id;
    const current = await backupOf(instance, id);
    if (current.status !== 'running') throw new Error(`the backup ended before the fault: ${current.status} ${current.error}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function settled() {
  await world.service().idle();
  await world.backups().idle();
  await world.service().idle();
}


/**
 * After the engine died: a probe (as supervision runs them) notices; the instance is offline or
 * already running again, with no operation left over.
 */
async function expectNoticedAndNotStuck(instance: Instance) {
  await world.service().probeAll();
  await settled();
  const after = await world.instance(instance.id);
  expect(after.operation).toBeNull();
  expect(['offline', 'running']).toContain(after.status);
}

async function expectNextBackupSucceeds(instance: Instance) {
  // Supervision starts a crashed instance again after a short backoff; wait for that (or start it).
  for (let i = 0; i < 100 && (await world.instance(instance.id)).status !== 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await world.service().idle();
  }
  if ((await world.instance(instance.id)).status !== 'running') {
    expect((await world.call('POST', `/instances/${instance.id}/start`, {})).statusCode).toBe(202);
    await settled();
  }
  const res = await world.call('POST', `/instances/${instance.id}/backups/database/backup`, {});
  expect(res.statusCode).toBe(202);
  await settled();
  const next = await backupOf(instance, res.json().id);
  expect({ status: next.status, error: next.error }).toEqual({ status: 'succeeded', error: null });
}

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'ledger', type: 'pg' });
  await world.service().idle();
  pg = await world.instance(res.json().id);
  // Enough data that the dump takes a moment: the fault lands while pg_dump runs.
  const client = await connect(pg);
  await client.query("create table big as select g as id, md5(g::text) || md5((g * 7)::text) as body from generate_series(1, 1500000) g");
  await client.end();
});

afterAll(async () => {
  await world.destroy();
});

describe('a database backup of PostgreSQL cut off', () => {
  it('by stopping the instance: the backup fails saying so, the instance ends stopped, the next backup succeeds', async () => {
    const id = await backupUnderway(pg);

    expect((await world.call('POST', `/instances/${pg.id}/stop`, {})).statusCode).toBe(202);
    await settled();

    const backup = await backupOf(pg, id);
    expect(backup.status).toBe('failed');
    expect(backup.error).toMatch(/stopped during the backup/);
    expect(await world.instance(pg.id)).toMatchObject({ status: 'stopped', operation: null });
    expect((await world.call('GET', '/healthz')).statusCode).toBe(200);
    await expectNextBackupSucceeds(pg);
  });

  it('by restarting the instance: the backup fails with a reason, the instance ends running, the next backup succeeds', async () => {
    const id = await backupUnderway(pg);

    expect((await world.call('POST', `/instances/${pg.id}/restart`, {})).statusCode).toBe(202);
    await settled();

    const backup = await backupOf(pg, id);
    expect(backup.status).toBe('failed');
    expect(backup.error).toEqual(expect.stringMatching(/\S/));
    expect(await world.instance(pg.id)).toMatchObject({ status: 'running', operation: null });
    await expectNextBackupSucceeds(pg);
  });

  it('by the postmaster being killed: nothing is listed as succeeded, no operation is left, the instance is offline or running again', async () => {
    const id = await backupUnderway(pg);

    process.kill(await world.enginePid(pg.id), 'SIGKILL');
    await settled();

    const backup = await backupOf(pg, id);
    expect(backup.status).toBe('failed');
    expect(backup.error).toEqual(expect.stringMatching(/\S/));
    await expectNoticedAndNotStuck(pg);
    await expectNextBackupSucceeds(pg);
  });
});

describe('a clone cut off by the source being killed', () => {
  it('leaves no operation on the source or the clone', async () => {
    const res = await world.call('POST', `/instances/${pg.id}/clone`, { name: 'ledger-copy' });
    expect(res.statusCode).toBe(202);
    process.kill(await world.enginePid(pg.id), 'SIGKILL');
    await settled();

    await expectNoticedAndNotStuck(pg);
    const clone = await world.instance(res.json().id);
    expect(clone.operation).toBeNull();
    await expectNextBackupSucceeds(pg);
  });
});

describe('etcd killed', () => {
  let etcd: Instance;

  beforeAll(async () => {
    const created = await world.call('POST', '/instances', { name: 'registry', type: 'etcd' });
    await world.service().idle();
    etcd = await world.instance(created.json().id);
  });

  it('during a clone leaves no operation on the source or the clone', async () => {
    const res = await world.call('POST', `/instances/${etcd.id}/clone`, { name: 'registry-copy' });
    expect(res.statusCode).toBe(202);
    process.kill(await world.enginePid(etcd.id), 'SIGKILL');
    await settled();

    await expectNoticedAndNotStuck(etcd);
    expect((await world.instance(res.json().id)).operation).toBeNull();
  });

  it('during a backup: the backup is not listed as succeeded and no operation is left', async () => {
    await expectNextBackupSucceeds(etcd);

    const res = await world.call('POST', `/instances/${etcd.id}/backups/database/backup`, {});
    expect(res.statusCode).toBe(202);
    process.kill(await world.enginePid(etcd.id), 'SIGKILL');
    await settled();

    const backup = await backupOf(etcd, res.json().id);
    expect(backup.status).toBe('failed');
    expect(backup.error).toEqual(expect.stringMatching(/\S/));
    await expectNoticedAndNotStuck(etcd);
    await expectNextBackupSucceeds(etcd);
  });
});
