import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup, BackupsSummary } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { stopInstances } from '../../e2e/stopInstances';
import { freePort, startWarden, type WardenProcess } from '../../e2e/wardenProcess';

// The real server (server/main.ts) as a child process, SIGKILLed while a database backup of a real
// PostgreSQL 15 instance is under way, then started again on the same data dir: the cut-off backup
// must be listed as failed, never as good, and nothing half-written may stay on disk.

jest.setTimeout(300_000);

const admin = { email: 'admin@crash.test', password: 'Crash-test-1!' };
const rows = 3_000_000;

let dataDir: string;
let port: number;
let warden: WardenProcess | null = null;
let cookie: string;
let instance: Instance;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Maybe<T> = T | undefined | null | false;

async function until<T>(what: string, probe: () => Promise<Maybe<T>> | Maybe<T>, timeoutMs = 60_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await sleep(everyMs);
  }
}

async function boot() {
  // A port block of its own, so this suite's instances never meet another suite's.
  const from = 17000 + Math.floor(Math.random() * 30) * 100;
  warden = await startWarden(
    {
      WARDEN_DATA_DIR: dataDir,
      WARDEN_ADMIN_EMAIL: admin.email,
      WARDEN_ADMIN_PASSWORD: admin.password,
      WARDEN_INSTANCE_PORTS: `${from}-${from + 99}`,
      WARDEN_LOG_LEVEL: 'warn',
    },
    port,
  );
}

/** SIGKILL: no shutdown hook runs, as in a power cut or an OOM kill. */
async function crash() {
  const child = warden!.child;
  warden = null;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function api<T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; json: T }> {
  const base = warden!.url;
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      accept: 'application/json',
      cookie,
      // The CSRF rule: a cookie-authenticated change must come from the public URL's origin.
      ...(method !== 'GET' && { origin: base, 'content-type': 'application/json' }),
    },
    ...(method !== 'GET' && { body: JSON.stringify(body ?? {}) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as T };
}

async function signIn() {
  const res = await fetch(`${warden!.url}/auth/login?useCookies=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: warden!.url },
    body: JSON.stringify(admin),
  });
  expect(res.status).toBe(200);
  cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('warden_session='))!;
  expect(cookie).toBeDefined();
}

const runningInstance = () =>
  until(`${instance?.name ?? 'the instance'} to run`, async () => {
    const { json } = await api<Instance>('GET', `/instances/${instance.id}`);
    return json.status === 'running' && json;
  });

const summary = async () => (await api<BackupsSummary>('GET', `/instances/${instance.id}/backups`)).json;
const databaseBackups = async () => (await api<PageOf<Backup>>('GET', `/instances/${instance.id}/backups/database?pageSize=100`)).json.items;

/** What a cut-off backup could leave: partial storage files and staging folders. */
function leftovers() {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith('.partial-')) found.push(path.relative(dataDir, full));
      else if (entry.isDirectory()) walk(full);
    }
  };
  walk(path.join(dataDir, 'backups'));
  for (const name of fs.readdirSync(path.join(dataDir, 'instances'))) {
    if (name.startsWith('.backup-')) found.push(path.join('instances', name));
  }
  return found;
}

const partialOf = (backupId: string) => path.join(dataDir, 'backups', instance.id, `.partial-${backupId}.tar`);
const stagingOf = (backupId: string) => path.join(dataDir, 'instances', `.backup-${backupId}`);
const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

interface CrashPoint {
  name: string;
  /** Resolves once the backup is at the point to crash at. */
  reached(backupId: string): Promise<void>;
}

const crashPoints: CrashPoint[] = [
  {
    name: 'right after the 202',
    reached: async () => undefined,
  },
  {
    name: 'while pg_dump writes the dump',
    async reached(backupId) {
      await until('pg_dump to be writing', async () => {
        const running = (await summary()).database.running;
        return running?.id === backupId && running.progress!.step.startsWith('dumping') && running.progress!.bytes > 0;
      });
      expect(fs.existsSync(path.join(stagingOf(backupId), 'databases'))).toBe(true);
    },
  },
  {
    name: 'while the archive is written to storage',
    async reached(backupId) {
      // Watched on disk, not through the API: the archive is written in well under a second.
      await until('the partial archive', () => sizeOf(partialOf(backupId)) > 0, 60_000, 2);
    },
  },
];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-crash-'));
  // The engine user (postgres) must pass through the data dir to reach instances' folders.
  fs.chmodSync(dataDir, 0o711);
  port = await freePort();
  await boot();
  await signIn();

  const created = await api<Instance>('POST', '/instances', { name: 'crash-pg', type: 'pg' });
  expect(created.status).toBe(202);
  instance = created.json;
  instance = await runningInstance();
  const { json: secret } = await api<{ password: string }>('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {});
  const client = new Client({ host: '127.0.0.1', port: instance.port, user: 'postgres', database: 'postgres', password: secret.password });
  await client.connect();
  // Enough that the dump takes seconds and the archive is tens of megabytes.
  await client.query(`create table t as select g, md5(g::text) as h from generate_series(1, ${rows}) g`);
  await client.end();
});

afterAll(async () => {
  // The server leaves instances running when it stops (by design): stop them through it, then make sure.
  if (warden && instance) {
    await api('POST', `/instances/${instance.id}/stop`, {});
    await until('the instance to stop', async () => (await api<Instance>('GET', `/instances/${instance.id}`)).json.status === 'stopped').catch(() => undefined);
  }
  await warden?.stop();
  warden = null;
  if (dataDir) {
    await stopInstances(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe(`a server killed at ${crashPoints.length} points of a database backup`, () => {
  const cut: string[] = [];

  it.each(crashPoints)('is killed $name and, started again, lists that backup as failed with nothing half-written left', async (point) => {
    const taken = await api<Backup>('POST', `/instances/${instance.id}/backups/database/backup`, {});
    expect(taken.status).toBe(202);
    await point.reached(taken.json.id);
    await crash();
    cut.push(taken.json.id);

    await boot();
    await runningInstance();
    const backup = (await databaseBackups()).find((b) => b.id === taken.json.id)!;
    expect(backup).toMatchObject({ status: 'failed', sizeBytes: null, sha256: null, error: expect.stringMatching(/server stopped while this backup was being taken/) });
    expect(leftovers()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'backups', instance.id, `${taken.json.id}.tar`))).toBe(false);
  });

  it('keeps every cut-off backup failed and then takes a backup that succeeds', async () => {
    const taken = await api<Backup>('POST', `/instances/${instance.id}/backups/database/backup`, {});
    expect(taken.status).toBe(202);
    const done = await until(
      'the backup to finish',
      async () => {
        const backup = (await databaseBackups()).find((b) => b.id === taken.json.id);
        return backup?.status !== 'running' && backup;
      },
      120_000,
      250,
    );
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(Object.keys(done.contents!.databases!.find((d) => d.name === 'postgres')!.rows)).toEqual(['public.t']);
    expect(sizeOf(path.join(dataDir, 'backups', instance.id, `${done.id}.tar`))).toBe(done.sizeBytes);

    const all = await databaseBackups();
    expect(all.filter((b) => cut.includes(b.id)).map((b) => b.status)).toEqual(cut.map(() => 'failed'));
    expect(all.filter((b) => b.status === 'succeeded').map((b) => b.id)).toEqual([done.id]);
    expect((await summary()).database).toMatchObject({ succeeded: 1, failed: crashPoints.length, running: null });
    // The succeeded backup's staging copy is removed while its outcome is announced, so it may outlive the answer by a moment.
    await until('the staging copy to be removed', async () => leftovers().length === 0, 10_000, 100).catch(() => undefined);
    expect(leftovers()).toEqual([]);
  });
});
