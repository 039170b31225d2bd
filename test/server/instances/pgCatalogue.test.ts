import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InstanceConfig } from '../../../contracts/instances';
import type { ConfigParameter } from '../../../server/engines/engine';
import { removeAbandonedBuilds } from '../../../server/engines/pgCatalogue';
import { instanceUser, instanceUserName } from '../../../server/engines/instanceUsers';
import { setup } from '../helpers';
import { instanceWorld, type InstanceWorld } from './world';

// The PostgreSQL parameter catalogue on a fresh server (no instance ever ran), checking parameters
// before initdb, and repairing the configuration of an instance that no longer starts. Real pg 15.

jest.setTimeout(180_000);

/** A build's folder as a crash leaves it: a cluster half made, last touched `ageMs` ago; as root, with its system user. */
function buildFolder(catalogDir: string, name: string, ageMs: number): string {
  const dir = path.join(catalogDir, name);
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'data', 'PG_VERSION'), '15\n');
  instanceUser({ id: name, dir });
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(dir, when, when);
  return dir;
}

const userExists = (name: string) => {
  try {
    execFileSync('getent', ['passwd', name]);
    return true;
  } catch {
    return false;
  }
};

const catalogueFiles = (dataDir: string) => fs.readdirSync(path.join(dataDir, 'engines')).filter((f) => /^pg-.+\.json$/.test(f));

describe('the pg parameter catalogue', () => {
  it('is read in the background by a listening server before any instance ran, and the throwaway cluster is gone', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-catalogue-'));
    fs.chmodSync(dataDir, 0o711);
    // What a server that died during an earlier build left: cleared by this one's build.
    const abandoned = buildFolder(path.join(dataDir, 'engines'), '.pg-catalogue-Ab12Cd', 60 * 60_000);
    try {
      const h = await setup({ config: { dataDir } });
      await h.app.listen({ host: '127.0.0.1', port: 0 });
      // Closing waits for the build the listening server started.
      await h.close();
      expect(fs.readdirSync(path.join(dataDir, 'engines'))).toEqual([expect.stringMatching(/^pg-15\..*\.json$/)]);
      const catalogue = JSON.parse(fs.readFileSync(path.join(dataDir, 'engines', catalogueFiles(dataDir)[0]), 'utf8')) as ConfigParameter[];
      expect(catalogue.find((p) => p.name === 'work_mem')).toMatchObject({ type: 'integer', unit: 'kB', min: 64, value: '4096', apply: 'reload' });
      expect(catalogue.find((p) => p.name === 'wal_level')).toMatchObject({ type: 'enum', enumValues: ['minimal', 'replica', 'logical'], apply: 'restart' });
      expect(catalogue.some((p) => p.name === 'block_size')).toBe(false);
      expect(fs.existsSync(abandoned)).toBe(false);
      if (process.getuid?.() === 0) expect(userExists(instanceUserName('.pg-catalogue-Ab12Cd'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('is not built by a server that does not listen', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-catalogue-'));
    try {
      const h = await setup({ config: { dataDir } });
      await h.app.ready();
      await h.close();
      expect(fs.existsSync(path.join(dataDir, 'engines'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('pg parameters on a fresh server', () => {
  let world: InstanceWorld;

  beforeAll(async () => {
    world = await instanceWorld();
  });

  afterAll(async () => {
    await world.destroy();
  });

  it('refuses a bad initial parameter before anything is created, building the catalogue first', async () => {
    expect(fs.existsSync(path.join(world.dataDir, 'engines'))).toBe(false);
    const res = await world.call('POST', '/instances', { name: 'bad-first', type: 'pg', parameters: { work_mem: 'lots', default_transaction_isolation: 'banana', max_connections: '50' } });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['default_transaction_isolation', 'work_mem']);
    expect(res.json().errors.default_transaction_isolation[0]).toMatch(/serializable, repeatable read/);
    expect((await world.call('GET', '/instances')).json()).toMatchObject({ items: [], total: 0 });
    const instancesDir = path.join(world.dataDir, 'instances');
    expect(fs.existsSync(instancesDir) ? fs.readdirSync(instancesDir) : []).toEqual([]);
    expect(catalogueFiles(world.dataDir)).toHaveLength(1);
  });

  it('reads and repairs the configuration of an instance a bad value left offline, which then starts', async () => {
    const created = await world.call('POST', '/instances', { name: 'repairable', type: 'pg', parameters: { work_mem: '8MB' } });
    expect(created.statusCode).toBe(202);
    const id = created.json().id as string;
    await world.service().idle();
    expect(await world.instance(id)).toMatchObject({ status: 'running' });
    await world.call('POST', `/instances/${id}/stop`, {});
    await world.service().idle();

    // A value PostgreSQL refuses at start, written by hand; without the values last read from the
    // running server, only the release's catalogue describes the parameters.
    const folder = path.join(world.dataDir, 'instances', id);
    fs.appendFileSync(path.join(folder, 'data', 'postgresql.auto.conf'), "shared_buffers = 'banana'\n");
    fs.rmSync(path.join(folder, 'parameters.json'), { force: true });
    await world.call('POST', `/instances/${id}/start`, {});
    await world.service().idle();
    expect(await world.instance(id)).toMatchObject({ status: 'offline' });

    const read = await world.call('GET', `/instances/${id}/config`);
    expect(read.statusCode).toBe(200);
    const parameters = (read.json() as InstanceConfig).parameters;
    expect(parameters.find((p) => p.name === 'shared_buffers')).toMatchObject({ value: 'banana', unit: '8kB', apply: 'restart' });
    expect(parameters.find((p) => p.name === 'work_mem')).toMatchObject({ value: '8MB' });

    // The same checks as for a running instance: a bad value and a managed parameter are refused.
    const refused = await world.call('PUT', `/instances/${id}/config`, { parameters: { shared_buffers: 'more', port: '5432' }, apply: 'none' });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(refused.json().errors).sort()).toEqual(['port', 'shared_buffers']);

    const fixed = await world.call('PUT', `/instances/${id}/config`, { parameters: { shared_buffers: '64MB' }, apply: 'restart' });
    expect(fixed.statusCode).toBe(200);
    expect(fixed.json()).toMatchObject({ restart: ['shared_buffers'], applied: 'none' });
    const autoConf = fs.readFileSync(path.join(folder, 'data', 'postgresql.auto.conf'), 'utf8');
    expect(autoConf).toContain("shared_buffers = '64MB'");
    expect(autoConf).not.toContain('banana');

    await world.call('POST', `/instances/${id}/start`, {});
    await world.service().idle();
    expect(await world.instance(id)).toMatchObject({ status: 'running' });
    const live = (await world.call('GET', `/instances/${id}/config`)).json() as InstanceConfig;
    expect(live.parameters.find((p) => p.name === 'shared_buffers')).toMatchObject({ value: String((64 * 1024) / 8) });
  });
});

describe('folders of builds a crash cut short', () => {
  let catalogDir: string;
  beforeEach(() => {
    catalogDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-catalogue-'));
  });
  afterEach(() => fs.rmSync(catalogDir, { recursive: true, force: true }));

  it('are removed with their users, while a build that may still run on another server is left alone', async () => {
    const abandoned = buildFolder(catalogDir, '.pg-catalogue-Ij56Kl', 60 * 60_000);
    buildFolder(catalogDir, '.pg-catalogue-Mn78Op', 5_000);
    fs.writeFileSync(path.join(catalogDir, 'pg-15.4.json'), '[]');

    expect(await removeAbandonedBuilds(catalogDir)).toEqual(['.pg-catalogue-Ij56Kl']);
    expect(fs.existsSync(abandoned)).toBe(false);
    expect(fs.readdirSync(catalogDir).sort()).toEqual(['.pg-catalogue-Mn78Op', 'pg-15.4.json']);
    if (process.getuid?.() === 0) expect(userExists(instanceUserName('.pg-catalogue-Ij56Kl'))).toBe(false);
    // An hour on, the other one counts as abandoned too (and its user goes with it).
    expect(await removeAbandonedBuilds(catalogDir, Date.now() + 60 * 60_000)).toEqual(['.pg-catalogue-Mn78Op']);
  });

  it('are looked for only where the catalogue is kept, which may not exist yet', async () => {
    expect(await removeAbandonedBuilds(path.join(catalogDir, 'missing'))).toEqual([]);
  });
});
