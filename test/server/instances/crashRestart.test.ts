import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import type { Engine } from '../../../server/engines/engine';
import { InProcessBus, type HubEvent } from '../../../server/hub/bus';
import { addUser, cookieLogin, origin, setup, type Harness } from '../helpers';
import { inertEngine } from './inertEngine';

// Crash restarts with backoff and the crash-loop limit, over an engine double whose process the test
// can kill, and a fake clock so minutes of backoff pass at once. pgInstance tests kill a real postmaster.

/** An inert engine whose "process" dies when the test says so, counting its starts. */
function crashableEngine() {
  const base = inertEngine('pg');
  const running = new Set<string>();
  const starts = new Map<string, number>();
  const engine: Engine = {
    ...base,
    start: async (rt) => {
      running.add(rt.id);
      starts.set(rt.id, (starts.get(rt.id) ?? 0) + 1);
    },
    stop: async (rt) => void running.delete(rt.id),
    restart: async (rt) => void running.add(rt.id),
    pid: (rt) => (running.has(rt.id) ? 4242 : null),
    probe: async (rt) => ({
      running: running.has(rt.id),
      level: running.has(rt.id) ? 'good' : 'error',
      checks: [{ name: 'process', level: running.has(rt.id) ? 'good' : 'error', message: running.has(rt.id) ? 'running' : 'not running' }],
    }),
  };
  return { engine, kill: (id: string) => running.delete(id), starts: (id: string) => starts.get(id) ?? 0 };
}

let h: Harness;
let dataDir: string;
let cookie: string;
let double: ReturnType<typeof crashableEngine>;
const events: HubEvent[] = [];

beforeEach(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-crash-'));
  fs.chmodSync(dataDir, 0o711);
  double = crashableEngine();
  events.length = 0;
  const bus = new InProcessBus();
  bus.subscribe((event) => events.push(event));
  h = await setup({ config: { dataDir }, engines: { pg: double.engine, etcd: inertEngine('etcd') }, supervise: false, bus });
  await addUser(h.db, 'admin@example.com', 'admin');
  cookie = await cookieLogin(h, 'admin@example.com');
});
afterEach(async () => {
  await h.app.instances.idle();
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { cookie, origin }, ...(payload && { payload }) });
const instance = async (id: string) => (await call('GET', `/instances/${id}`)).json() as Instance;
const statusEvents = (id: string) => events.filter((e) => e.event === 'InstanceStatusChanged' && (e.payload as { id: string }).id === id);

/** One supervision round, waiting for any start it launched. */
async function probe() {
  await h.app.instances.probeAll();
  await h.app.instances.idle();
}

async function created(name: string): Promise<string> {
  const res = await call('POST', '/instances', { name, type: 'pg' });
  expect(res.statusCode).toBe(202);
  const { id } = res.json() as Instance;
  await h.app.instances.idle();
  expect((await instance(id)).status).toBe('running');
  return id;
}

/** Kills the process, lets supervision find it, and moves the clock past the backoff it chose. */
async function crashAndWait(id: string, backoffMs: number) {
  double.kill(id);
  await probe();
  const before = double.starts(id);
  // Not before the backoff is over.
  h.clock.advance(backoffMs - 1);
  await probe();
  expect(double.starts(id)).toBe(before);
  h.clock.advance(1);
  await probe();
  expect(double.starts(id)).toBe(before + 1);
}

it('starts a crashed engine again after a backoff that doubles', async () => {
  const id = await created('orders');
  double.kill(id);
  await probe();
  const down = await instance(id);
  expect(down.status).toBe('offline');
  expect(down.statusReason).toMatch(/not running/);
  // Not yet: the first restart waits a second.
  await probe();
  expect(double.starts(id)).toBe(1);
  h.clock.advance(1000);
  await probe();
  expect(double.starts(id)).toBe(2);
  expect((await instance(id)).status).toBe('running');
  // The second crash waits two seconds, the third four.
  await crashAndWait(id, 2000);
  await crashAndWait(id, 4000);
  expect((await instance(id)).status).toBe('running');
  const logs = await h.db.selectFrom('logs').select(['message', 'handler']).where('instance_id', '=', id).where('handler', '=', 'supervisor').execute();
  expect(logs.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(/crash 3 within 10 minutes; at 5 it is left offline\): starting it again in 4 s/)]));
});

it('leaves an engine that keeps crashing offline as a crash loop after 5 crashes, until started by hand', async () => {
  const id = await created('flaky');
  await crashAndWait(id, 1000);
  await crashAndWait(id, 2000);
  await crashAndWait(id, 4000);
  await crashAndWait(id, 8000);
  // The fifth crash within ten minutes: no more starts, however long supervision waits.
  double.kill(id);
  await probe();
  const starts = double.starts(id);
  h.clock.advance(120_000);
  await probe();
  await probe();
  expect(double.starts(id)).toBe(starts);
  const looped = await instance(id);
  expect(looped.status).toBe('offline');
  expect(looped.statusReason).toMatch(/^crash loop/);
  const entry = await h.db.selectFrom('logs').select(['message', 'level']).where('instance_id', '=', id).where('message', 'like', '%crash loop%').executeTakeFirst();
  expect(entry).toMatchObject({ level: 'error' });
  // Probing the looped instance again pushes nothing new.
  const pushed = statusEvents(id).length;
  await probe();
  expect(statusEvents(id)).toHaveLength(pushed);

  // A start by hand runs it and resets the count: the next crash is restarted after a second again.
  expect((await call('POST', `/instances/${id}/start`, {})).statusCode).toBe(202);
  await h.app.instances.idle();
  expect((await instance(id)).status).toBe('running');
  await crashAndWait(id, 1000);
  expect((await instance(id)).status).toBe('running');
});

it('counts only the crashes within the last ten minutes', async () => {
  const id = await created('steady');
  await crashAndWait(id, 1000);
  await crashAndWait(id, 2000);
  await crashAndWait(id, 4000);
  await crashAndWait(id, 8000);
  // Eleven minutes later the earlier crashes no longer count: this one is the first again.
  h.clock.advance(11 * 60_000);
  await crashAndWait(id, 1000);
  expect((await instance(id)).status).toBe('running');
});

it('leaves an instance stopped on request alone', async () => {
  const id = await created('parked');
  expect((await call('POST', `/instances/${id}/stop`, {})).statusCode).toBe(202);
  await h.app.instances.idle();
  h.clock.advance(60_000);
  await probe();
  await probe();
  expect(double.starts(id)).toBe(1);
  expect((await instance(id)).status).toBe('stopped');
});
