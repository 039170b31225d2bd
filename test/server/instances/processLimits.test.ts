import fs from 'node:fs';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import { confinementStatus, defaultLimits, instanceLimits } from '../../../server/engines/confinement';
import { instanceWorld, type InstanceWorld } from './world';

// A group's process limits reach a real PostgreSQL 15 (DESIGN §11): set through the API, taken at
// the instance's next restart, and read back from the kernel in /proc. Confinement applies them,
// which needs a root server (as the tests run here and in CI).

jest.setTimeout(300_000);

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

let world: InstanceWorld;
let groupId: string;
let pg: Instance;

beforeAll(async () => {
  if (!asRoot) return;
  world = await instanceWorld();
  groupId = (await world.groupWithMember('tenants', 'member@example.com')).groupId;
  pg = await world.created({ name: 'limited', type: 'pg', groupId });
});

afterAll(async () => {
  if (world) await world.destroy();
});

/** A process's soft limits on open files and processes as the kernel holds them (`Max open files  1000  1000  files`). */
function limits(pid: number): [string, string] {
  const lines = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n');
  const soft = (name: string) => lines.find((l) => l.startsWith(name))!.slice(name.length).trim().split(/\s+/)[0];
  return [soft('Max open files'), soft('Max processes')];
}

/** The limits of the processes the postmaster has forked (checkpointer, walwriter …) that still run. */
function childLimits(pid: number): [string, string][] {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((child) => {
    try {
      return [limits(child)];
    } catch {
      return [];
    }
  });
}

describeAsRoot('a group’s process limits on a running PostgreSQL', () => {
  it('are taken at the next restart, by the postmaster and the processes it forks', async () => {
    expect(confinementStatus().active).toBe(true);
    const before = await world.enginePid(pg.id);
    const defaults = [String(defaultLimits.maxOpenFiles), String(defaultLimits.maxProcesses)];
    expect(limits(before)).toEqual(defaults);

    const set = await world.call('PUT', `/groups/${groupId}`, { name: 'tenants', limits: { maxOpenFiles: 1000, maxProcesses: 300 } });
    expect(set.statusCode).toBe(200);
    // The running engine keeps what it started with until then.
    expect(limits(before)).toEqual(defaults);

    expect((await world.call('POST', `/instances/${pg.id}/restart`, {})).statusCode).toBe(202);
    await world.service().idle();
    expect((await world.instance(pg.id)).status).toBe('running');
    const after = await world.enginePid(pg.id);
    expect(after).not.toBe(before);
    expect(limits(after)).toEqual(['1000', '300']);
    const forked = childLimits(after);
    expect(forked.length).toBeGreaterThan(0);
    expect(forked).toEqual(forked.map(() => ['1000', '300']));
  });

  it('follow the instance to another group', async () => {
    const made = await world.call('POST', '/groups', { name: 'ledger', limits: { maxProcesses: 128, maxOpenFiles: 2048 } });
    expect(made.statusCode).toBe(201);
    expect((await world.call('PUT', `/instances/${pg.id}`, { groupId: made.json().id })).statusCode).toBe(200);
    expect(instanceLimits(path.join(world.dataDir, 'instances', pg.id))).toEqual({ ...defaultLimits, maxProcesses: 128, maxOpenFiles: 2048 });
  });
});
