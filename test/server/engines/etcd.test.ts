import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { debianEngineBinaries } from '../../../server/engines/detect';
import type { InstanceRuntime } from '../../../server/engines/engine';
import { etcdEngine } from '../../../server/engines/etcd';
import { parseEtcdZapLine } from '../../../server/logs/engineLogLines';

// Real etcd 3.4 from Debian.
jest.setTimeout(120_000);

const etcdctl = promisify(execFile);
const engine = etcdEngine(debianEngineBinaries);
let root: string;
let rt: InstanceRuntime;

const ctl = (...args: string[]) =>
  etcdctl(debianEngineBinaries.etcdctlBin, [`--endpoints=http://127.0.0.1:${rt.port}`, ...args], {
    env: { ...process.env, ETCDCTL_API: '3' },
  }).then((r) => r.stdout.trim());

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
  await ctl('put', 'greeting', 'hello');
  expect(await ctl('get', 'greeting', '--print-value-only')).toBe('hello');
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
  expect(await ctl('get', 'greeting', '--print-value-only')).toBe('hello');
});

test('stop uses SIGTERM and leaves it stopped; remove then cleans the folder', async () => {
  await engine.stop(rt);
  expect(engine.pid(rt)).toBeNull();
  expect(await engine.probe(rt)).toMatchObject({ running: false, level: 'error' });
  await engine.remove(rt);
  expect(fs.existsSync(rt.dir)).toBe(false);
});
