import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { debianEngineBinaries } from '../../../server/engines/detect';
import type { InstanceRuntime } from '../../../server/engines/engine';
import { pgEngine, pgSuperuserPassword } from '../../../server/engines/pg';
import { parsePgJsonLine } from '../../../server/logs/engineLogLines';

// Real PostgreSQL 15 from Debian, run as the postgres user when the tests run as root.
jest.setTimeout(120_000);

const engine = pgEngine(debianEngineBinaries);
let root: string;
let rt: InstanceRuntime;

beforeAll(async () => {
  // /tmp is traversable by the engine user; a root-only home folder would not be.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-pg-'));
  fs.chmodSync(root, 0o755);
  rt = { id: 'pg-test', dir: path.join(root, 'instance'), port: 15000 + Math.floor(Math.random() * 400) };
  await engine.initialize(rt, { work_mem: '6MB' });
  await engine.start(rt);
});

afterAll(async () => {
  await engine.stop(rt).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

async function query(sql: string) {
  const client = new Client({ host: '127.0.0.1', port: rt.port, user: 'postgres', database: 'postgres', password: pgSuperuserPassword(rt) });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

test('initializes with checksums and scram, runs on its loopback port, and answers queries with the generated password', async () => {
  expect(engine.pid(rt)).toEqual(expect.any(Number));
  expect(await query('show data_checksums')).toEqual([{ data_checksums: 'on' }]);
  expect(await query('show password_encryption')).toEqual([{ password_encryption: 'scram-sha-256' }]);
  expect(await query('show work_mem')).toEqual([{ work_mem: '6MB' }]);
  expect(fs.statSync(path.join(rt.dir, 'superuser.password')).mode & 0o777).toBe(0o600);
  const health = await engine.probe(rt);
  expect(health).toMatchObject({ running: true, level: 'good' });
});

test('validates changes against pg_settings and refuses the settings Warden manages', async () => {
  const errors = await engine.validate(rt, {
    work_mem: '8MB',
    max_connections: '0',
    nonsense: '1',
    port: '1',
    archive_command: 'cp %p /tmp',
    wal_level: 'bogus',
    log_min_messages: 'loud',
    fsync: 'maybe',
    application_name: 'two\nlines',
    shared_buffers: '100TB',
    temp_buffers: '2GBs',
    statement_timeout: '5min',
    maintenance_work_mem: '64MB',
  });
  expect(errors).toEqual({
    max_connections: ['max_connections must be at least 1.'],
    nonsense: ['Unknown parameter nonsense.'],
    port: ['port is managed by Warden.'],
    archive_command: ['archive_command is managed by Warden.'],
    wal_level: ['wal_level is managed by Warden.'],
    log_min_messages: [expect.stringMatching(/^log_min_messages must be one of debug5, .*panic\.$/)],
    fsync: ['fsync must be on or off.'],
    application_name: ['application_name may not contain control characters (such as a newline).'],
    shared_buffers: [expect.stringMatching(/^shared_buffers must be at most \d+ 8kB\.$|^shared_buffers may be at most \d+\w+: half of the host's memory\.$/)],
    temp_buffers: ['temp_buffers takes a memory unit (B, kB, MB, GB, TB), not GBs.'],
  });
});

test('a reload-only change applies without a restart; a restart-only change is reported as pending', async () => {
  const pidBefore = engine.pid(rt);
  expect(await engine.apply(rt, { work_mem: '12MB', shared_buffers: '64MB' })).toEqual({ reload: ['work_mem'], restart: ['shared_buffers'] });
  const report = await engine.reload(rt);
  expect(report).toEqual({ errors: [], pendingRestart: ['shared_buffers'] });
  expect(await query('show work_mem')).toEqual([{ work_mem: '12MB' }]);
  expect(engine.pid(rt)).toBe(pidBefore);
  expect((await engine.probe(rt)).checks).toContainEqual(expect.objectContaining({ name: 'pending restart', level: 'warn' }));

  await engine.restart(rt);
  expect(await query('show shared_buffers')).toEqual([{ shared_buffers: '64MB' }]);
});

test('writes JSON logs to its log folder', async () => {
  const files = fs.readdirSync(engine.logDir(rt)).filter((f) => f.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  const first = fs.readFileSync(path.join(engine.logDir(rt), files[0]), 'utf8').split('\n')[0];
  expect(JSON.parse(first)).toMatchObject({ error_severity: expect.any(String), message: expect.any(String) });
});

test('its real log lines map to Warden levels: LOG → information, WARNING, ERROR, FATAL', async () => {
  await query(`do $$ begin raise warning 'careful now'; end $$`);
  await expect(query('select 1/0')).rejects.toThrow('division by zero');
  const intruder = new Client({ host: '127.0.0.1', port: rt.port, user: 'postgres', database: 'postgres', password: 'wrong' });
  await expect(intruder.connect()).rejects.toThrow(/password authentication failed/);

  const parsed = async () =>
    fs
      .readdirSync(engine.logDir(rt))
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => fs.readFileSync(path.join(engine.logDir(rt), f), 'utf8').split('\n'))
      .map((line) => parsePgJsonLine(line))
      .filter((entry) => entry !== null);
  // The logging collector writes asynchronously.
  let entries = await parsed();
  for (let i = 0; i < 50 && !entries.some((e) => e.level === 'fatal'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    entries = await parsed();
  }
  const levelOf = (text: string) => entries.find((e) => e.message.includes(text))?.level;
  expect(levelOf('database system is ready to accept connections')).toBe('information');
  expect(levelOf('careful now')).toBe('warning');
  expect(levelOf('division by zero')).toBe('error');
  expect(levelOf('password authentication failed')).toBe('fatal');
  expect(entries[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
});

test('stop ends the postmaster, a killed one is seen as not running, and remove refuses a running instance', async () => {
  await expect(engine.remove(rt)).rejects.toThrow('stop it before removing');
  await engine.stop(rt);
  expect(engine.pid(rt)).toBeNull();
  expect(await engine.probe(rt)).toMatchObject({ running: false, level: 'error' });
  await engine.start(rt);
  process.kill(engine.pid(rt)!, 'SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(engine.pid(rt)).toBeNull();
});
