import type { Instance } from '../../../contracts/instances';
import { instanceWorld, type InstanceWorld } from './world';

// Supervision of a real PostgreSQL 15 instance: probes of an unchanged instance push nothing, and a
// postmaster killed with SIGKILL is found, pushed once as offline, and started again.

jest.setTimeout(180_000);

let world: InstanceWorld;
let alpha: Instance;

const statusEvents = () => world.events('InstanceStatusChanged').filter((e) => e.id === alpha.id);

beforeAll(async () => {
  world = await instanceWorld();
  const res = await world.call('POST', '/instances', { name: 'alpha', type: 'pg' });
  expect(res.statusCode).toBe(202);
  await world.service().idle();
  alpha = await world.instance(res.json().id);
  expect(alpha.status).toBe('running');
});

afterAll(async () => {
  await world?.destroy();
});

const postmasterPid = () => world.enginePid(alpha.id).catch(() => null);

it('pushes no status event while probes find the instance unchanged', async () => {
  // The first probe may still record what settled since the create; after it, nothing changes.
  await world.service().probeAll();
  const before = statusEvents().length;
  for (let i = 0; i < 4; i++) await world.service().probeAll();
  expect(statusEvents()).toHaveLength(before);
  expect((await world.instance(alpha.id)).status).toBe('running');
});

it('pushes exactly one event when the postmaster is killed, then starts it again', async () => {
  const pid = await postmasterPid();
  expect(pid).not.toBeNull();
  const before = statusEvents().length;
  process.kill(pid!, 'SIGKILL');
  // Gone once the kernel reaped it (the server is not its parent).
  for (let i = 0; i < 100 && (await postmasterPid()) === pid; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await world.service().probeAll();
  const pushed = statusEvents().slice(before);
  expect(pushed).toHaveLength(1);
  expect(pushed[0]).toMatchObject({ status: 'offline', previousStatus: 'running' });

  // Supervision starts it again after its backoff (a second, more if the old backends linger).
  let status = (await world.instance(alpha.id)).status;
  for (let i = 0; i < 120 && status !== 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await world.service().idle();
    await world.service().probeAll();
    status = (await world.instance(alpha.id)).status;
  }
  expect(status).toBe('running');
  const restarted = await postmasterPid();
  expect(restarted).not.toBeNull();
  expect(restarted).not.toBe(pid);
  expect(world.events('OperationCompleted')).toContainEqual(
    expect.objectContaining({ instanceId: alpha.id, kind: 'start', ok: true, detail: expect.stringMatching(/after a crash/) }),
  );
  const logged = await world.db.selectFrom('logs').select('message').where('instance_id', '=', alpha.id).where('handler', '=', 'supervisor').execute();
  expect(logged.map((l) => l.message)).toContainEqual(expect.stringMatching(/process is gone \(crash 1 within 10 minutes/));
});
