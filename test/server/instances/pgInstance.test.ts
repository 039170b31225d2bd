import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Instance, InstanceConfig, UpdateConfigResponse } from '../../../contracts/instances';
import type { LogsPage } from '../../../contracts/logs';
import { isAlive } from '../../../server/engines/processRunner';
import { instanceUser } from '../../../server/engines/instanceUsers';
import { instanceWorld, type InstanceWorld } from './world';

// A PostgreSQL instance through the API, against Debian's postgresql 15: everything for real.

jest.setTimeout(180_000);

let world: InstanceWorld;
let alpha: Instance;
let client: Client;

const postmasterPid = (instance: Instance) => world.enginePid(instance.id);

async function connect(instance: Instance): Promise<Client> {
  const { password } = (await world.call('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).json() as { password: string };
  const c = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database: 'postgres', password });
  // A restart ends open connections; the test reconnects, so the client's error event is expected.
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'alpha', type: 'pg', description: 'orders', parameters: { work_mem: '6MB' } });
  expect(res.statusCode).toBe(202);
  expect(res.json()).toMatchObject({ name: 'alpha', status: 'unInitialized', operation: { kind: 'create' } });
  await world.service().idle();
  alpha = await world.instance(res.json().id);
  client = await connect(alpha);
});

afterAll(async () => {
  await client?.end().catch(() => undefined);
  await world.destroy();
});

describe('a PostgreSQL instance', () => {
  it('reaches running with its engine version, initial parameters and events', async () => {
    expect(alpha).toMatchObject({ status: 'running', desiredState: 'running', operation: null, health: { level: 'good' } });
    expect(alpha.engineVersion).toMatch(/^15\./);
    const { rows } = await client.query('show work_mem');
    expect(rows[0].work_mem).toBe('6MB');
    expect(world.events('InstanceStatusChanged').some((e) => e.status === 'running')).toBe(true);
    expect(world.events('OperationCompleted')).toContainEqual(expect.objectContaining({ instanceId: alpha.id, kind: 'create', ok: true }));
  });

  it('serves SQL over the loopback port with the generated password, which only the secret call reveals', async () => {
    await client.query('create table orders (id int primary key, item text)');
    await client.query("insert into orders select g, 'item ' || g from generate_series(1, 500) g");
    const { rows } = await client.query('select count(*)::int as n from orders');
    expect(rows[0].n).toBe(500);
    expect(JSON.stringify((await world.call('GET', `/instances/${alpha.id}`)).json())).not.toMatch(/password/i);
    expect((await world.call('GET', `/instances/${alpha.id}/connection`)).json()).toEqual({
      host: '127.0.0.1',
      port: alpha.port,
      user: 'app',
      database: 'app',
      uri: `postgresql://app@127.0.0.1:${alpha.port}/app`,
      command: `psql 'postgresql://app@127.0.0.1:${alpha.port}/app'`,
      endpoints: [`127.0.0.1:${alpha.port}`],
    });
  });

  it('applies a reload-only change live, without a restart, and saves it as a revision', async () => {
    const before = await postmasterPid(alpha);
    const res = await world.call('PUT', `/instances/${alpha.id}/config`, { parameters: { work_mem: '8MB' }, apply: 'reload' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual<UpdateConfigResponse>({ revision: 2, reload: ['work_mem'], restart: [], applied: 'reloaded' });
    const fresh = await connect(alpha);
    expect((await fresh.query('show work_mem')).rows[0].work_mem).toBe('8MB');
    await fresh.end();
    expect(await postmasterPid(alpha)).toBe(before);
    const revisions = (await world.call('GET', `/instances/${alpha.id}/config/revisions`)).json();
    expect(revisions.items[0]).toMatchObject({ revision: 2, author: 'admin@example.com', changes: [{ name: 'work_mem', from: '6MB', to: '8MB' }] });
  });

  it('reports a restart-needed change as pending until a restart applies it', async () => {
    const res = await world.call('PUT', `/instances/${alpha.id}/config`, { parameters: { shared_buffers: '64MB' }, apply: 'reload' });
    expect(res.json()).toMatchObject({ reload: [], restart: ['shared_buffers'] });
    await world.service().refresh(alpha.id);
    const config = (await world.call('GET', `/instances/${alpha.id}/config`)).json() as InstanceConfig;
    expect(config.pendingRestart).toEqual(['shared_buffers']);
    expect(config.parameters.find((p) => p.name === 'shared_buffers')).toMatchObject({ apply: 'restart', unit: '8kB' });
    expect((await world.instance(alpha.id)).health.level).toBe('warn');

    const before = await postmasterPid(alpha);
    expect((await world.call('POST', `/instances/${alpha.id}/restart`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect(await postmasterPid(alpha)).not.toBe(before);
    await client.end();
    client = await connect(alpha);
    expect((await client.query('show shared_buffers')).rows[0].shared_buffers).toBe('64MB');
    expect((await world.call('GET', `/instances/${alpha.id}/config`)).json().pendingRestart).toEqual([]);
  });

  it('reports a restart-only change saved without a reload or a restart as pending, and a reload-only one not', async () => {
    const res = await world.call('PUT', `/instances/${alpha.id}/config`, { parameters: { max_connections: '120', work_mem: '8MB' }, apply: 'none' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ reload: ['work_mem'], restart: ['max_connections'], applied: 'none' });
    // Revisions' log lines show both sides in the parameter's unit, as the review did: shared_buffers
    // (counted in 8kB) read `16384 → 64MB` when an earlier test set it to 64MB.
    const logged = (await world.db.selectFrom('logs').select('message').where('instance_id', '=', alpha.id).where('handler', '=', 'config').execute()).map(
      (entry) => entry.message,
    );
    expect(logged).toContainEqual(expect.stringMatching(/saved: shared_buffers 16384 8kB → 8192 8kB$/));
    expect(logged).toContainEqual(expect.stringMatching(/saved: max_connections 100 → 120, work_mem 8192 kB → 8192 kB$/));
    const config = (await world.call('GET', `/instances/${alpha.id}/config`)).json() as InstanceConfig;
    expect(config.pendingRestart).toEqual(['max_connections']);
    await world.service().refresh(alpha.id);
    expect((await world.instance(alpha.id)).health.checks).toContainEqual(
      expect.objectContaining({ name: 'pending restart', level: 'warn', message: 'waiting for a restart: max_connections' }),
    );

    expect((await world.call('POST', `/instances/${alpha.id}/restart`, {})).statusCode).toBe(202);
    await world.service().idle();
    await client.end();
    client = await connect(alpha);
    expect((await client.query('show max_connections')).rows[0].max_connections).toBe('120');
    expect((await world.call('GET', `/instances/${alpha.id}/config`)).json().pendingRestart).toEqual([]);
  });

  it('refuses invalid configuration with an error per parameter and changes nothing', async () => {
    const res = await world.call('PUT', `/instances/${alpha.id}/config`, {
      parameters: { work_mem: 'lots', max_connections: '-5', no_such_parameter: '1', port: '5432', wal_level: 'loud' },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['max_connections', 'no_such_parameter', 'port', 'wal_level', 'work_mem']);
    expect(res.json().errors.port[0]).toMatch(/managed by Warden/);
    expect((await client.query('show work_mem')).rows[0].work_mem).toBe('8MB');
  });

  it('answers 409 to a second operation while one runs', async () => {
    const first = await world.call('POST', `/instances/${alpha.id}/reload-configuration`, {});
    const second = await world.call('POST', `/instances/${alpha.id}/stop`, {});
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(409);
    expect(second.json().detail).toMatch(/Another operation/);
    await world.service().idle();
    expect(world.events('OperationCompleted')).toContainEqual(expect.objectContaining({ instanceId: alpha.id, kind: 'reload', ok: true }));
  });

  it('answers 409, never a server error, when the running instance does not answer a read or a change of its configuration', async () => {
    const pid = (await postmasterPid(alpha))!;
    // A frozen postmaster (a host under memory pressure, a debugger) takes connections and never answers them.
    process.kill(pid, 'SIGSTOP');
    try {
      const read = await world.call('GET', `/instances/${alpha.id}/config`);
      expect(read.statusCode).toBe(409);
      expect(read.json().detail).toMatch(/^The instance did not answer/);
      const change = await world.call('PUT', `/instances/${alpha.id}/config`, { parameters: { work_mem: '9MB' }, apply: 'none' });
      expect(change.statusCode).toBe(409);
      expect(change.json().detail).toMatch(/^The instance did not answer/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect((await world.call('GET', `/instances/${alpha.id}/config`)).statusCode).toBe(200);
    expect((await client.query('show work_mem')).rows[0].work_mem).toBe('8MB');
  });

  it('clones into a new instance on its own port holding the same data', async () => {
    const res = await world.call('POST', `/instances/${alpha.id}/clone`, { name: 'alpha-copy' });
    expect(res.statusCode).toBe(202);
    await world.service().idle();
    const copy = await world.instance(res.json().id);
    expect(copy).toMatchObject({ status: 'running', type: 'pg', description: 'Clone of alpha' });
    expect(copy.port).not.toBe(alpha.port);
    const c = await connect(copy);
    expect((await c.query('select count(*)::int as n, max(item) as last from orders')).rows[0]).toEqual({ n: 500, last: 'item 99' });
    await c.end();
    expect((await world.call('DELETE', `/instances/${copy.id}?force=true`)).statusCode).toBe(200);
  });

  it('stops, stays stopped, and starts again with its data', async () => {
    await client.end();
    expect((await world.call('POST', `/instances/${alpha.id}/stop`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect(await world.instance(alpha.id)).toMatchObject({ status: 'stopped', desiredState: 'stopped' });
    await world.service().refresh(alpha.id);
    expect((await world.instance(alpha.id)).status).toBe('stopped');
    // Configuration can be read and changed while stopped; it applies at the next start.
    const saved = await world.call('PUT', `/instances/${alpha.id}/config`, { parameters: { work_mem: '12MB' } });
    expect(saved.json()).toMatchObject({ reload: ['work_mem'], applied: 'none' });
    expect((await world.call('POST', `/instances/${alpha.id}/start`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(alpha.id)).status).toBe('running');
    client = await connect(alpha);
    expect((await client.query('select count(*)::int as n from orders')).rows[0].n).toBe(500);
    expect((await client.query('show work_mem')).rows[0].work_mem).toBe('12MB');
  });

  it('goes offline when the postmaster is killed, with the reason, and recovers with start', async () => {
    await client.end();
    process.kill(await postmasterPid(alpha), 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await world.service().refresh(alpha.id);
    const offline = await world.instance(alpha.id);
    expect(offline.status).toBe('offline');
    expect(offline.statusReason).toMatch(/not running/);
    expect(offline.health.level).toBe('error');
    // What a dead postmaster may leave of its user's processes (a backend attached to its shared
    // memory) is ended before a new one starts.
    const user = instanceUser({ id: alpha.id, dir: path.join(world.dataDir, 'instances', alpha.id) });
    const leftover = user && spawn('/bin/sleep', ['300'], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
    expect((await world.call('POST', `/instances/${alpha.id}/start`, {})).statusCode).toBe(202);
    await world.service().idle();
    if (leftover) expect(isAlive(leftover.pid!)).toBe(false);
    expect(world.events('OperationCompleted').at(-1)).toEqual(expect.objectContaining({ kind: 'start', error: null }));
    expect((await world.instance(alpha.id)).status).toBe('running');
    client = await connect(alpha);
  });

  it('ingests its JSON log lines with mapped levels, and control-plane entries beside them', async () => {
    await client.query('select * from no_such_table').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await world.logs().pollOnce();
    const page = (await world.call('GET', `/instances/${alpha.id}/logs?levels=error&handler=postgres`)).json() as LogsPage;
    expect(page.items.some((e) => e.message.includes('no_such_table') && e.level === 'error')).toBe(true);
    const info = (await world.call('GET', `/instances/${alpha.id}/logs?handler=postgres&search=ready%20to%20accept`)).json() as LogsPage;
    expect(info.items.length).toBeGreaterThan(0);
    expect(info.items.every((e) => e.level === 'information')).toBe(true);
    const handlers = (await world.call('GET', `/instances/${alpha.id}/logs/unique-handlers`)).json();
    expect(handlers).toEqual(expect.arrayContaining(['config', 'postgres', 'supervisor']));
    // Paging by cursor walks older entries without repeats.
    const first = (await world.call('GET', `/instances/${alpha.id}/logs?limit=3`)).json() as LogsPage;
    const second = (await world.call('GET', `/instances/${alpha.id}/logs?limit=3&cursor=${first.nextCursor}`)).json() as LogsPage;
    expect(second.items[0].id).toBeLessThan(first.items[2].id);
    // A second pass finds nothing new: offsets are kept.
    const count = await world.logCount(alpha.id);
    await world.logs().pollOnce();
    expect(await world.logCount(alpha.id)).toBe(count);
  });

  it('is re-adopted, not restarted, by a new server process', async () => {
    await client.end();
    const pid = await postmasterPid(alpha);
    await world.restartServer();
    expect((await world.instance(alpha.id)).status).toBe('running');
    expect(await postmasterPid(alpha)).toBe(pid);
    client = await connect(alpha);
  });

  it('refuses to delete a running instance without force, then deletes it and its folder', async () => {
    await client.end();
    const refused = await world.call('DELETE', `/instances/${alpha.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/running/);
    const res = await world.call('DELETE', `/instances/${alpha.id}?force=true`);
    expect(res.statusCode).toBe(200);
    expect(res.json().backups).toMatch(/backups/);
    expect(fs.existsSync(`${world.dataDir}/instances/${alpha.id}`)).toBe(false);
    expect((await world.call('GET', `/instances/${alpha.id}`)).statusCode).toBe(404);
    expect(world.events('InstanceDeleted')).toContainEqual({ id: alpha.id });
  });
});
