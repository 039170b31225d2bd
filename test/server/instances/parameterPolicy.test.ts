import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { Instance, InstanceConfig } from '../../../contracts/instances';
import type { LogsPage } from '../../../contracts/logs';
import { findInstanceRow } from '../../../server/db/instances';
import { pgPolicyTable } from '../../../server/engines/parameterPolicy';
import { pgSuperuserPassword } from '../../../server/engines/pg';
import { instanceWorld, type InstanceWorld } from './world';

// Who may set which parameter, against a real PostgreSQL 15: the policy table drives the cases.

jest.setTimeout(180_000);

let world: InstanceWorld;
let alpha: Instance;
let member: string;

const autoConf = () => path.join(world.dataDir, 'instances', alpha.id, 'data', 'postgresql.auto.conf');
const readAutoConf = () => fs.readFileSync(autoConf(), 'utf8');
const put = (parameters: Record<string, string>, cookie?: string) => world.call('PUT', `/instances/${alpha.id}/config`, { parameters, apply: 'none' }, cookie);

async function show(setting: string): Promise<string> {
  const row = (await findInstanceRow(world.db, alpha.id))!;
  const client = new Client({ host: '127.0.0.1', port: alpha.port, user: 'postgres', database: 'postgres', password: pgSuperuserPassword(world.service().runtime(row)) });
  await client.connect();
  try {
    return (await client.query<{ value: string }>('select current_setting($1) as value', [setting])).rows[0].value;
  } finally {
    await client.end();
  }
}

async function operate(action: 'start' | 'stop') {
  const res = await world.call('POST', `/instances/${alpha.id}/${action}`, {});
  expect(res.statusCode).toBe(202);
  await world.service().idle();
}

beforeAll(async () => {
  world = await instanceWorld();
  const tenants = await world.groupWithMember('tenants', 'member@example.com');
  member = tenants.cookie;
  alpha = await world.created({ name: 'alpha', type: 'pg', groupId: tenants.groupId });
  expect(alpha.status).toBe('running');
});

afterAll(() => world.destroy());

const managed = Object.entries(pgPolicyTable).filter(([, entry]) => entry.policy === 'managed').map(([name]) => name);
const adminOnly = Object.entries(pgPolicyTable).filter(([, entry]) => entry.policy === 'admin').map(([name]) => name);

describe('the parameter policy', () => {
  it('tells each caller what they may set, why not, and hides managed paths from members', async () => {
    const asMember = (await world.call('GET', `/instances/${alpha.id}/config`, undefined, member)).json() as InstanceConfig;
    const asAdmin = (await world.call('GET', `/instances/${alpha.id}/config`)).json() as InstanceConfig;
    const find = (config: InstanceConfig, name: string) => config.parameters.find((p) => p.name === name)!;

    expect(find(asMember, 'work_mem')).toMatchObject({ policy: 'user', editable: true, reason: null });
    expect(find(asMember, 'archive_command')).toMatchObject({ policy: 'managed', editable: false, reason: expect.stringMatching(/runs a shell command/) });
    expect(find(asMember, 'fsync')).toMatchObject({ policy: 'admin', editable: false, reason: expect.stringMatching(/^Only an admin may set fsync/) });
    expect(find(asAdmin, 'fsync')).toMatchObject({ policy: 'admin', editable: true, reason: null });
    expect(find(asAdmin, 'archive_command')).toMatchObject({ editable: false });
    expect(find(asMember, 'log_directory').value).toBe('(set by Warden)');
    expect(find(asAdmin, 'log_directory').value).toBe(path.join(world.dataDir, 'instances', alpha.id, 'logs'));
    expect(JSON.stringify(asMember)).not.toContain(world.dataDir);
  });

  it.each(managed)('refuses %s to a member and to an admin, and leaves the file as it was', async (name) => {
    const before = readAutoConf();
    for (const cookie of [member, undefined]) {
      const res = await put({ [name]: 'on' }, cookie);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors[name]).toEqual([expect.stringMatching(new RegExp(`^${name} is managed by Warden: .+\\.$`))]);
    }
    expect(readAutoConf()).toBe(before);
  });

  it.each(adminOnly)('refuses %s to a member', async (name) => {
    const before = readAutoConf();
    const res = await put({ [name]: 'on' }, member);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[name]).toEqual([expect.stringMatching(new RegExp(`^Only an admin may set ${name}: .+\\.$`))]);
    expect(readAutoConf()).toBe(before);
  });

  it('lets an admin set an admin parameter', async () => {
    expect((await put({ synchronous_commit: 'off' })).statusCode).toBe(200);
    expect(readAutoConf()).toContain("synchronous_commit = 'off'");
    expect((await put({ synchronous_commit: 'on' })).statusCode).toBe(200);
  });

  it('writes nothing when one parameter of several is refused', async () => {
    const before = readAutoConf();
    const res = await put({ work_mem: '7MB', archive_command: 'cat /etc/shadow > /tmp/x' }, member);
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toEqual(['archive_command']);
    expect(readAutoConf()).toBe(before);
    expect((await put({ work_mem: '7MB' }, member)).statusCode).toBe(200);
  });

  it('refuses a member an instance created with a managed or admin parameter', async () => {
    const group = (await world.db.selectFrom('groups').select('id').executeTakeFirstOrThrow()).id;
    const res = await world.call('POST', '/instances', { name: 'sneaky', type: 'pg', groupId: group, parameters: { shared_preload_libraries: 'evil', fsync: 'off' } }, member);
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['fsync', 'shared_preload_libraries']);
    expect((await world.call('GET', '/instances?search=sneaky')).json().total).toBe(0);
  });
});

describe('values', () => {
  it('answers 400, not 500, for control characters, host limits and wrong units', async () => {
    const res = await put({ application_name: 'two\nlines', shared_buffers: `${Math.ceil(os.totalmem() / 1024 ** 3)}GB`, max_connections: '100000', work_mem: '1parsec' }, member);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual({
      application_name: ['application_name may not contain control characters (such as a newline).'],
      shared_buffers: [expect.stringMatching(/half of the host's memory/)],
      max_connections: [expect.stringMatching(/^max_connections must be at most|what the host's memory allows/)],
      work_mem: ['work_mem takes a memory unit (B, kB, MB, GB, TB), not parsec.'],
    });
  });

  it('quotes values exactly as ALTER SYSTEM does, whether the instance runs or not', async () => {
    const tricky = "o'brien \\ co";
    expect((await put({ cluster_name: tricky })).statusCode).toBe(200);
    const written = readAutoConf().split('\n').find((line) => line.startsWith('cluster_name'));
    // Written by ALTER SYSTEM on the running server.
    expect(written).toBe("cluster_name = 'o''brien \\\\ co'");

    await operate('stop');
    expect((await put({ cluster_name: `${tricky}2` })).statusCode).toBe(200);
    // Written by Warden for the stopped server, in the same form.
    expect(readAutoConf().split('\n').find((line) => line.startsWith('cluster_name'))).toBe("cluster_name = 'o''brien \\\\ co2'");
    await operate('start');
    expect(await show('cluster_name')).toBe(`${tricky}2`);
    const config = (await world.call('GET', `/instances/${alpha.id}/config`)).json() as InstanceConfig;
    expect(config.parameters.find((p) => p.name === 'cluster_name')?.value).toBe(`${tricky}2`);
  });
});

describe('managed values saved before the policy', () => {
  it('are reset at the next start, with a log entry, and never run', async () => {
    const marker = path.join(world.dataDir, 'archived-by-a-tenant');
    await operate('stop');
    fs.appendFileSync(autoConf(), `archive_mode = 'on'\narchive_command = 'touch ${marker}'\n`);
    await operate('start');
    expect((await world.instance(alpha.id)).status).toBe('running');
    expect(await show('archive_command')).not.toContain(marker);
    expect(await show('archive_mode')).toBe('off');
    expect(readAutoConf()).not.toContain('archive_command');
    const logs = (await world.call('GET', `/instances/${alpha.id}/logs?handler=config&limit=50`)).json() as LogsPage;
    expect(logs.items.map((e) => e.message)).toContainEqual(expect.stringMatching(/managed by Warden: archive_mode, archive_command$/));
    expect(fs.existsSync(marker)).toBe(false);
  });
});
