import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecoveryTarget } from '../../../cli/commands/pitr';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryWindow, RestorePlan, RestorePoint } from '../../../contracts/pitr';
import { goodPassword } from '../helpers';
import { runWarden, type Ran } from './runWarden';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// `warden pitr` run as a child process against a real server on loopback whose pg instances archive
// WAL with the real pgBackRest: one source instance with one full backup, its window, a restore
// point, a plan, the targets refused (locally, and by the server), and one real restore.

jest.setTimeout(120_000);


let world: InstanceWorld;
let scratch: string;
let configDir: string;
let source: Instance;

function warden(args: string[], options: { input?: string; dir?: string } = {}): Promise<Ran> {
  return runWarden(args, { ...options, dir: options.dir ?? configDir, home: scratch });
}

async function json<T>(args: string[]): Promise<T> {
  const ran = await warden(args);
  if (ran.code !== 0) throw new Error(`warden ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
  return JSON.parse(ran.stdout) as T;
}

/** `key: value` lines of the client's human output. */
const fieldsOf = (text: string) => new Map(text.split('\n').filter((l) => /^\S[^:]*:\s/.test(l)).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));

const instanceNames = async () => (await world.call('GET', '/instances')).json().items.map((i: Instance) => i.name).sort();

beforeAll(async () => {
  world = await instanceWorld({ pitr: true });
  const baseUrl = await world.app().listen({ host: '127.0.0.1', port: 0 });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-cli-pitr-'));
  configDir = path.join(scratch, 'config');
  const login = await warden(['login', '--url', baseUrl, '--email', 'admin@example.com', '--password-stdin'], { input: goodPassword });
  expect(login.code).toBe(0);
  source = await world.created({ name: 'orders', type: 'pg' });
  expect(source.status).toBe('running');
  // The window starts with a physical full backup, taken through the client.
  const taken = await json<Backup>(['backups', 'create', 'orders', '--method', 'full', '--json']);
  expect(taken).toMatchObject({ status: 'succeeded', format: 'pgBackRest full' });
  const refused = await warden(['backups', 'create', 'orders', '--kind', 'file', '--method', 'full']);
  expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('--method is for database backups') });
});

afterAll(async () => {
  await world?.destroy();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('reading --to', () => {
  it('takes latest, a WAL position, a time with its offset, and anything else as a restore point name', () => {
    expect(parseRecoveryTarget('latest')).toBe('latest');
    expect(parseRecoveryTarget('0/3000028')).toEqual({ lsn: '0/3000028' });
    expect(parseRecoveryTarget('2026-11-26T10:42:00+01:00')).toEqual({ time: '2026-11-26T10:42:00+01:00' });
    expect(parseRecoveryTarget('2026-11-26T10:42:00.250Z')).toEqual({ time: '2026-11-26T10:42:00.250Z' });
    expect(parseRecoveryTarget('before the migration')).toEqual({ name: 'before the migration' });
    expect(parseRecoveryTarget('2026-11-26 release')).toEqual({ name: '2026-11-26 release' });
  });

  it('refuses a time without an offset, one written otherwise, and a word that can be no target', () => {
    for (const bare of ['2026-11-26T10:42:00', '2026-11-26 10:42:00', '2026-11-26']) expect(() => parseRecoveryTarget(bare)).toThrow(/has no offset/);
    expect(() => parseRecoveryTarget('2026-11-26T10:42+01:00')).toThrow(/Write a time as 2026-11-26T10:42:00\+01:00/);
    expect(() => parseRecoveryTarget('2026-13-45T10:42:00Z')).toThrow(/Write a time as/);
    expect(() => parseRecoveryTarget('no/such target')).toThrow(/Expected latest, a WAL position/);
  });
});

describe('the window', () => {
  it('prints the earliest and latest moments, the archive timeout, gaps and the physical backup, and --json prints the window as is', async () => {
    const window = await json<RecoveryWindow>(['pitr', 'window', 'orders', '--json']);
    expect(window).toMatchObject({ enabled: true, gaps: [], backups: [{ kind: 'full' }] });
    expect(window.earliest).toBe(window.backups[0].finishedAt);
    expect(await json<RecoveryWindow>(['--json', 'pitr', 'window', source.id])).toMatchObject({ earliest: window.earliest, backups: window.backups });

    const ran = await warden(['pitr', 'window', 'orders']);

    expect(ran.code).toBe(0);
    const fields = fieldsOf(ran.stdout);
    expect(fields.get('Instance')).toBe(`orders (${source.id})`);
    expect(fields.get('Earliest')).toBe(window.earliest);
    expect(fields.get('Latest')).toMatch(/^\S+Z \(\d+ s ago\)$/);
    expect(fields.get('Archive timeout')).toBe('60 s');
    expect(fields.get('Last archived')).toMatch(/^\S+Z \([0-9A-F]{24}/);
    expect(ran.stdout).toMatch(/^Gaps: none$/m);
    expect(ran.stdout).toMatch(/^Physical backups:\n {2}ID\s+KIND\s+RESTORABLE FROM\s+SIZE\s+DATABASE\s+NEEDS\n {2}\d{8}-\d{6}F\s+full\s+\S+Z\s/m);
    expect(ran.stdout).toContain(window.backups[0].id);
  });

  it('marks a named restore point and lists it on the window', async () => {
    const point = await json<RestorePoint>(['pitr', 'mark', 'orders', 'before the migration', '--json']);
    expect(point).toMatchObject({ name: 'before the migration', lsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/), createdBy: 'admin@example.com' });

    const ran = await warden(['pitr', 'window', 'orders']);
    expect(ran.stdout).toMatch(new RegExp(`^Restore points:\\n {2}NAME.*\\n {2}before the migration\\s+${point.at.replace(/\./g, '\\.')}\\s+${point.lsn}\\s+admin@example.com$`, 'm'));
    // The same name twice: the server's refusal per field, exit code 1.
    const again = await warden(['pitr', 'mark', 'orders', 'before the migration']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^ {2}name: orders already has a restore point named 'before the migration'\.$/m);
  });
});

describe('restoring to a point', () => {
  it('prints the plan of a dry run and makes nothing', async () => {
    const window = await json<RecoveryWindow>(['pitr', 'window', 'orders', '--json']);
    const ran = await warden(['pitr', 'restore', 'orders', '--to', 'latest', '--name', 'orders-copy', '--dry-run']);

    expect(ran.code).toBe(0);
    const fields = fieldsOf(ran.stdout);
    expect(fields.get('Target')).toBe('the latest moment');
    expect(fields.get('Backup set')).toMatch(new RegExp(`^${window.backups[0].id} \\(full, restorable from ${window.earliest!.replace(/\./g, '\\.')}, `));
    expect(fields.get('Timeline')).toBe('1');
    expect(fields.get('WAL to replay')).toMatch(/^\d+ segment\(s\), \d/);
    expect(fields.get('Estimate')).toMatch(/^none: |^about \d/);
    expect(ran.stdout).toMatch(/Dry run: nothing was restored\. Without --dry-run this makes orders-copy\.$/m);
    const plan = await json<RestorePlan>(['--json', 'pitr', 'restore', 'orders', '--to', 'latest', '--name', 'orders-copy', '--dry-run']);
    expect(plan).toMatchObject({ target: 'latest', timeline: 1, backup: { id: window.backups[0].id } });
    expect(await instanceNames()).toEqual(['orders']);
  });

  it('refuses a time without an offset before asking anything: no sign-in is needed to be told', async () => {
    const ran = await warden(['pitr', 'restore', 'orders', '--to', '2026-11-26T10:42:00', '--name', 'orders-copy'], { dir: path.join(scratch, 'nobody') });

    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/argument '2026-11-26T10:42:00' is invalid\. This time has no offset: write the zone it is in, as in 2026-11-26T10:42:00\+01:00, or Z for UTC/);
  });

  it("prints the server's refusal of a time before the window, stating the window, and exits 1", async () => {
    const ran = await warden(['pitr', 'restore', 'orders', '--to', '2020-01-01T00:00:00Z', '--name', 'orders-copy']);

    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^warden: 2020-01-01T00:00:00Z \(2020-01-01T00:00:00\.000Z\) is outside the recoverable window \S+Z – \S+Z\.\n$/);
    expect(ran.stdout).toBe('');
    expect(await instanceNames()).toEqual(['orders']);
  });

  it('restores to the latest moment into a new instance and waits until it runs', async () => {
    const ran = await warden(['pitr', 'restore', 'orders', '--to', 'latest', '--name', 'orders-latest']);

    expect(ran.stderr).toBe('Restoring orders to the latest moment into orders-latest: waiting…\n');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Restoring orders to the latest moment into orders-latest: done, orders-latest is running\.\nLast replayed transaction: .+, timeline 2, recovery \d+ s\.\n$/);
    expect(await instanceNames()).toEqual(['orders', 'orders-latest']);
    const made = (await world.call('GET', '/instances?search=orders-latest')).json().items[0] as Instance;
    expect(made).toMatchObject({ status: 'running', operation: null });
    // The new instance's window says where it came from.
    const window = fieldsOf((await warden(['pitr', 'window', 'orders-latest'])).stdout);
    expect(window.get('Restored from')).toMatch(/^orders to the latest moment, backup \d{8}-\d{6}F, last transaction .+, timeline 2$/);
  });
});
