import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { removeInstanceLimits, writeInstanceLimits } from '../../../server/engines/confinement';
import { debianEngineBinaries } from '../../../server/engines/detect';
import type { InstanceRuntime } from '../../../server/engines/engine';
import { etcdEngine } from '../../../server/engines/etcd';
import { parseEtcdZapLine } from '../../../server/logs/engineLogLines';
import { etcdctl, expectRefused, secretOf } from './etcdClient';

// Real etcd 3.4 from Debian.
jest.setTimeout(120_000);

const engine = etcdEngine(debianEngineBinaries);
let root: string;
let rt: InstanceRuntime;

const member = () => ({ port: rt.port, dir: rt.dir });
/** etcdctl as the owner, as people use the instance. */
const ctl = (...args: string[]) => etcdctl(member(), args).trim();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-etcd-'));
  fs.chmodSync(root, 0o755);
  const port = 15400 + Math.floor(Math.random() * 300);
  rt = { id: 'etcd-test', dir: path.join(root, 'instance'), port, peerPort: port + 300 };
  await engine.initialize(rt, { 'snapshot-count': '5000' });
  await engine.start(rt);
});

afterAll(async () => {
  await engine.stop(rt).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a single member on loopback that etcdctl can use, healthy, with zap JSON logs', async () => {
  ctl('put', 'greeting', 'hello');
  expect(ctl('get', 'greeting', '--print-value-only')).toBe('hello');
  expect(await engine.probe(rt)).toMatchObject({ running: true, level: 'good' });
  const entries = fs
    .readFileSync(path.join(engine.logDir(rt), 'etcd.log'), 'utf8')
    .split('\n')
    .map(parseEtcdZapLine)
    .filter((entry) => entry !== null);
  // etcd 3.4 warns at start that its default auth token is not signed.
  expect(entries.find((e) => e.message.includes('simple token is not cryptographically signed'))?.level).toBe('warning');
  expect(entries.find((e) => e.message.includes('serving client traffic insecurely'))?.level).toBe('information');
});

test('runs with auth: without a password nothing is read or written; the owner reads and writes every key but is not root', async () => {
  for (const args of [['get', '--prefix', ''], ['put', 'stranger', 'was here']]) {
    expectRefused(member(), 'nobody', args, /user name is empty/);
  }
  expectRefused(member(), { user: 'app', password: 'guess' }, ['get', 'greeting'], /authentication failed/);
  expect(ctl('put', 'other/key', 'x')).toBe('OK');
  expect(ctl('get', '--prefix', '', '--keys-only')).toBe('greeting\n\nother/key');
  for (const args of [['user', 'add', 'intruder:pw'], ['user', 'grant-role', 'app', 'root'], ['auth', 'disable'], ['snapshot', 'save', path.join(root, 'stolen.db')]]) {
    expectRefused(member(), 'owner', args, /permission denied/);
  }
  expect(etcdctl(member(), ['user', 'get', 'app'], { as: 'root' })).toMatch(/^User: app\nRoles: app$/m);
  // Kept beside the instance's data, readable by the server alone.
  for (const name of ['root.password', 'owner.password']) {
    const stat = fs.statSync(path.join(rt.dir, name));
    expect({ uid: stat.uid, mode: stat.mode & 0o777 }).toEqual({ uid: process.getuid!(), mode: 0o600 });
  }
  expect(secretOf(member(), 'root')).not.toBe(secretOf(member(), 'owner'));
  // etcd 3.4 answers /health without credentials, so the probe needs none.
  expect(await engine.probe(rt)).toMatchObject({ running: true, level: 'good' });
});

test('an instance that ran without auth gets it at its next start, and users made meanwhile lose root', async () => {
  // As before auth: no users, no password files, and a user anyone on the host could make root.
  etcdctl(member(), ['auth', 'disable'], { as: 'root' });
  for (const args of [['user', 'delete', 'app'], ['user', 'delete', 'root'], ['role', 'delete', 'app'], ['user', 'add', 'intruder:pw'], ['user', 'grant-role', 'intruder', 'root']]) {
    etcdctl(member(), args, { as: 'nobody' });
  }
  for (const name of ['root.password', 'owner.password']) fs.rmSync(path.join(rt.dir, name));
  expect(etcdctl(member(), ['put', 'stranger', 'was here'], { as: 'nobody' }).trim()).toBe('OK');

  await engine.stop(rt);
  await engine.start(rt);

  expectRefused(member(), 'nobody', ['get', 'greeting'], /user name is empty/);
  expect(ctl('get', 'stranger', '--print-value-only')).toBe('was here');
  expectRefused(member(), { user: 'intruder', password: 'pw' }, ['user', 'list'], /permission denied/);
  expect(etcdctl(member(), ['user', 'list'], { as: 'root' }).split('\n').filter(Boolean)).toEqual(['app', 'intruder', 'root']);
  // Every start sets the same users up again, and changes nothing that is right already.
  await engine.restart(rt);
  expect(ctl('get', 'greeting', '--print-value-only')).toBe('hello');
});

test('flags are validated, and applying them restarts with the new flags while the data stays', async () => {
  expect(
    await engine.validate(rt, {
      'snapshot-count': 'many',
      'log-level': 'loud',
      'data-dir': '/x',
      'listen-client-urls': 'http://0.0.0.0:2379',
      'heartbeat-interval': '100ms',
      'auto-compaction-retention': '1h; rm -rf /',
      'no-such-flag': '1',
    }),
  ).toEqual({
    'snapshot-count': ['snapshot-count must be a number.'],
    'log-level': ['log-level must be one of debug, info, warn, error, panic, fatal.'],
    'data-dir': ['data-dir is managed by Warden.'],
    'listen-client-urls': ['listen-client-urls is managed by Warden.'],
    'heartbeat-interval': ['heartbeat-interval takes a plain number (in ms).'],
    'auto-compaction-retention': ['auto-compaction-retention must be a whole number (hours or revisions) or a duration such as 30m or 1h.'],
    'no-such-flag': ['Unknown etcd flag no-such-flag.'],
  });
  expect(await engine.validate(rt, { 'auto-compaction-retention': '90m', 'heartbeat-interval': '150' })).toEqual({});
  expect(await engine.apply(rt, { 'log-level': 'warn' })).toEqual({ reload: [], restart: ['log-level'] });
  const before = engine.pid(rt);
  await engine.reload(rt);
  expect(engine.pid(rt)).not.toBe(before);
  expect((await engine.parameters(rt)).find((p) => p.name === 'log-level')?.value).toBe('warn');
  expect(ctl('get', 'greeting', '--print-value-only')).toBe('hello');
});

test('gets the address space its backend file needs even where the instance’s limit is lower', async () => {
  if (process.getuid?.() !== 0) return;
  // etcd maps its backend with 10 GiB of address space: under a 1 GiB limit it could not start.
  writeInstanceLimits(rt.dir, { maxMemoryBytes: 1024 ** 3 });
  try {
    await engine.restart(rt);
    const pid = engine.pid(rt)!;
    const line = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max address space'))!;
    expect(line.split(/\s+/).slice(3, 5)).toEqual([String(16 * 1024 ** 3), String(16 * 1024 ** 3)]);
    expect(ctl('get', 'greeting', '--print-value-only')).toBe('hello');
  } finally {
    removeInstanceLimits(rt.dir);
  }
});

test('stop uses SIGTERM and leaves it stopped; remove then cleans the folder', async () => {
  await engine.stop(rt);
  expect(engine.pid(rt)).toBeNull();
  expect(await engine.probe(rt)).toMatchObject({ running: false, level: 'error' });
  await engine.remove(rt);
  expect(fs.existsSync(rt.dir)).toBe(false);
});

test('a cluster whose first start fails leaves none of its members running, so none serves before authentication is on', async () => {
  const port = 15750 + Math.floor(Math.random() * 40) * 6;
  const cluster: InstanceRuntime = {
    id: 'etcd-failing-cluster',
    dir: path.join(root, 'failing'),
    port,
    peerPort: port + 1,
    members: [
      { port: port + 2, peerPort: port + 3 },
      { port: port + 4, peerPort: port + 5 },
    ],
  };
  // Something else holds member 3's peer port: that member cannot start, and the cluster cannot form.
  // (It hangs up on whoever connects, so closing it waits for no one.)
  const squatter = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => squatter.listen(port + 5, '127.0.0.1', resolve));
  try {
    await engine.initialize(cluster, {});
    await expect(engine.start(cluster)).rejects.toThrow(/etcd did not become healthy \(member [\d, ]*3\)/);
    expect(engine.pid(cluster)).toBeNull();
    expect(await engine.stoppedMembers(cluster)).toEqual([1, 2, 3]);
    // Nothing answers on the members' client ports.
    for (const p of [port, port + 2]) await expect(fetch(`http://127.0.0.1:${p}/health`)).rejects.toThrow();
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
    await engine.stop(cluster).catch(() => undefined);
  }
});
