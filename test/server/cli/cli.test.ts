import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type { LogEntry } from '../../../contracts/logs';
import { goodPassword } from '../helpers';
import { bin, root, runWarden, type Ran } from './runWarden';
import { instanceWorld, type InstanceWorld } from '../instances/world';

// The `warden` client run as a child process, as a person or a script runs it, against a real server
// listening on loopback with a real etcd member: sign-in (with and without two-factor), instances,
// configuration errors, backups with a checked and resumed download, a live log tail, exit codes.

jest.setTimeout(180_000);


let world: InstanceWorld;
let baseUrl: string;
let scratch: string;
let configDir: string;

function warden(args: string[], options: { input?: string; env?: Record<string, string>; dir?: string } = {}): Promise<Ran> {
  return runWarden(args, { ...options, dir: options.dir ?? configDir, home: scratch });
}

/** Runs the client with --json and answers its parsed stdout, failing with stderr when it did not succeed. */
async function json<T>(args: string[], options: Parameters<typeof warden>[1] = {}): Promise<T> {
  const ran = await warden(['--json', ...args], options);
  if (ran.code !== 0) throw new Error(`warden ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
  return JSON.parse(ran.stdout) as T;
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const credentialsFile = (dir = configDir) => path.join(dir, 'credentials.json');

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  world = await instanceWorld();
  baseUrl = await world.app().listen({ host: '127.0.0.1', port: 0 });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-cli-'));
  configDir = path.join(scratch, 'config');
});

afterAll(async () => {
  await world.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('signing in', () => {
  it('signs in with a password from stdin and keeps the tokens readable by the owner only', async () => {
    const ran = await warden(['login', '--url', baseUrl, '--email', 'admin@example.com', '--password-stdin'], { input: `${goodPassword}\n` });

    expect(ran).toMatchObject({ code: 0, stdout: `Signed in to ${baseUrl} as admin@example.com (admin).\n` });
    expect(fs.statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(credentialsFile(), 'utf8'))).toMatchObject({ url: baseUrl, email: 'admin@example.com' });
    expect(await json(['whoami'])).toEqual({ url: baseUrl, user: expect.objectContaining({ email: 'admin@example.com', role: 'admin' }) });
  });

  it('refuses a wrong password with exit code 1 and keeps nothing', async () => {
    const dir = path.join(scratch, 'wrong');
    const ran = await warden(['login', '--url', baseUrl, '--email', 'admin@example.com', '--password-stdin'], { input: 'not-it', dir });

    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/Sign-in failed: wrong e-mail or password/);
    expect(fs.existsSync(credentialsFile(dir))).toBe(false);
  });

  it('asks for the second factor of an account with two-factor sign-in, and accepts a code from the authenticator', async () => {
    const cookie = await world.cookieFor('two@example.com', 'regular');
    const { sharedKey } = (await world.call('POST', '/auth/manage/2fa', {}, cookie)).json();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(sharedKey), digits: 6, period: 30, algorithm: 'SHA1' });
    expect((await world.call('POST', '/auth/manage/2fa', { enable: true, twoFactorCode: totp.generate() }, cookie)).statusCode).toBe(200);
    const dir = path.join(scratch, 'two');
    const login = (extra: string[]) =>
      warden(['login', '--url', baseUrl, '--email', 'two@example.com', '--password-stdin', ...extra], { input: goodPassword, dir });

    // No terminal to ask on: a usage error naming what is missing.
    const withoutCode = await login([]);
    expect(withoutCode.code).toBe(2);
    expect(withoutCode.stderr).toMatch(/Two-factor code .* is needed: pass it as a flag/);
    expect((await login(['--code', '000000'])).stderr).toMatch(/wrong e-mail, password or two-factor code/);

    // The code of the next 30 s step (the one used to enable is spent).
    const ran = await login(['--code', totp.generate({ timestamp: Date.now() + 30_000 })]);
    expect(ran).toMatchObject({ code: 0, stdout: `Signed in to ${baseUrl} as two@example.com (regular).\n` });
    expect((await json<{ user: { twoFactorEnabled: boolean } }>(['whoami'], { dir })).user.twoFactorEnabled).toBe(true);
  });

  it('refreshes an access token the server no longer accepts, once, and saves the new tokens', async () => {
    const saved = JSON.parse(fs.readFileSync(credentialsFile(), 'utf8'));
    fs.writeFileSync(credentialsFile(), JSON.stringify({ ...saved, accessToken: 'revoked-or-expired' }), { mode: 0o600 });

    expect((await json<{ user: { email: string } }>(['whoami'])).user.email).toBe('admin@example.com');
    const renewed = JSON.parse(fs.readFileSync(credentialsFile(), 'utf8'));
    expect(renewed.accessToken).not.toBe('revoked-or-expired');
    expect(renewed.refreshToken).not.toBe(saved.refreshToken);
    expect(fs.statSync(credentialsFile()).mode & 0o777).toBe(0o600);
  });

  it('uses WARDEN_URL and WARDEN_TOKEN instead of a saved sign-in', async () => {
    const { accessToken } = JSON.parse(fs.readFileSync(credentialsFile(), 'utf8'));
    const ran = await json<{ user: { email: string } }>(['whoami'], { dir: path.join(scratch, 'none'), env: { WARDEN_URL: baseUrl, WARDEN_TOKEN: accessToken } });
    expect(ran.user.email).toBe('admin@example.com');
  });
});

describe('an etcd instance through the client', () => {
  let kv: Instance;
  let backup: Backup;

  it('creates and starts it, waiting for the outcome, and lists it', async () => {
    kv = await json<Instance>(['instances', 'create', '--type', 'etcd', '--name', 'cli-kv']);
    expect(kv).toMatchObject({ name: 'cli-kv', type: 'etcd', status: 'running', operation: null });

    const listed = await json<Instance[]>(['instances', 'list']);
    expect(listed.map((i) => [i.name, i.status])).toEqual([['cli-kv', 'running']]);
    const table = await warden(['instances', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+STATUS\s+HEALTH/);
    expect(table.stdout).toMatch(/cli-kv\s+etcd\s+running/);
  });

  it('shows how to connect: the owner user and an etcdctl command that asks for the password', async () => {
    const ran = await warden(['instances', 'show', 'cli-kv']);
    expect(ran.code).toBe(0);
    const fields = new Map(ran.stdout.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
    expect([fields.get('Connect'), fields.get('User'), fields.get('Command')]).toEqual([
      `http://127.0.0.1:${kv.port}`,
      'app',
      `etcdctl --endpoints=http://127.0.0.1:${kv.port} --user=app get --prefix --keys-only ''`,
    ]);
  });

  it('stops and starts it by name', async () => {
    expect(await json<Instance>(['instances', 'stop', 'cli-kv'])).toMatchObject({ status: 'stopped' });
    expect(await json<Instance>(['instances', 'start', kv.id])).toMatchObject({ status: 'running' });
  });

  it("reads the configuration, and prints the API's errors per parameter for a change it refuses", async () => {
    const config = await json<{ revision: number; parameters: { name: string }[] }>(['config', 'get', 'cli-kv']);
    const fromApi = (await world.call('GET', `/instances/${kv.id}/config`)).json();
    expect(config.parameters.map((p) => p.name)).toEqual(fromApi.parameters.map((p: { name: string }) => p.name));
    const [first] = config.parameters;
    expect((await json<{ parameters: { name: string }[] }>(['config', 'get', 'cli-kv', first.name])).parameters).toEqual([expect.objectContaining({ name: first.name })]);

    const ran = await warden(['config', 'set', 'cli-kv', 'no-such-flag=1']);

    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^warden: .+\n {2}no-such-flag: .+/m);
  });

  it("refuses a script run on the latest backup while there is none, with the server's reason, and runs on an empty instance when asked", async () => {
    const refused = await warden(['script', 'run', 'cli-kv', '-'], { input: 'get /cli/flag\n' });

    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^warden: Conflict: The instance has no backup to copy.*'live' for a copy of the live instance, or source 'empty' for an empty instance/m);

    const ran = await warden(['script', 'run', 'cli-kv', '-', '--source', 'empty'], { input: 'get /cli/flag\n' });

    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/succeeded on an empty instance: 1 statement\(s\), 0 failed/);
  });

  it('takes a database backup and downloads it, checked against the recorded SHA-256', async () => {
    backup = await json<Backup>(['backups', 'create', 'cli-kv']);
    expect(backup).toMatchObject({ status: 'succeeded', kind: 'database', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const file = path.join(scratch, 'kv.tar');

    const saved = await json<{ file: string; bytes: number; sha256: string; resumedFrom: number }>(['backups', 'download', 'cli-kv', backup.id, '-o', file]);

    expect(saved).toEqual({ file, bytes: backup.sizeBytes, sha256: backup.sha256, resumedFrom: 0 });
    expect((await json<Backup[]>(['backups', 'list', 'cli-kv'])).map((b) => b.id)).toEqual([backup.id]);
    expect(sha256(file)).toBe(backup.sha256);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('resumes a partial download with Range and checks the whole file', async () => {
    const whole = fs.readFileSync(path.join(scratch, 'kv.tar'));
    const file = path.join(scratch, 'resumed.tar');
    const half = Math.floor(whole.length / 2);
    fs.writeFileSync(`${file}.partial`, whole.subarray(0, half));

    const saved = await json<{ bytes: number; sha256: string; resumedFrom: number }>(['backups', 'download', 'cli-kv', backup.id, '-o', file]);

    expect(saved).toMatchObject({ bytes: whole.length, sha256: backup.sha256, resumedFrom: half });
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
  });

  it('refuses a download whose bytes do not hash to the checksum and removes the partial file', async () => {
    const file = path.join(scratch, 'bad.tar');
    fs.writeFileSync(`${file}.partial`, Buffer.alloc(100, 'x'));

    const ran = await warden(['backups', 'download', 'cli-kv', backup.id, '-o', file]);

    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/Checksum mismatch/);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);
  });

  it('follows the logs through the hub until a new entry arrives', async () => {
    const child = spawn(process.execPath, [bin, '--config-dir', configDir, '--json', 'logs', '--instance', 'cli-kv', '--follow', '--limit', '5'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: scratch },
    });
    const entries: LogEntry[] = [];
    let stderr = '';
    let buffered = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    /** Settles once `check` holds after some output, or fails with what the client said when it exits first. */
    const until = (check: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const look = () => check() && resolve();
        child.stdout.on('data', look);
        child.stderr.on('data', look);
        void exited.then(() => reject(new Error(`the client exited: ${stderr}`)));
        look();
      });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (buffered + chunk.toString()).split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) entries.push(JSON.parse(line));
    });
    try {
      // The history first, then "Following" once the hub is joined: only then is the new entry written.
      await until(() => stderr.includes('Following'));
      // Clearing nothing writes a record of the clearing into the instance's log.
      const cleared = await world.call('POST', `/logs/clear?instanceId=${kv.id}&before=2000-01-01T00:00:00.000Z`, {});
      expect(cleared.statusCode).toBe(200);
      await until(() => entries.some((e) => e.handler === 'logs' && /cleared 0 entries/.test(e.message)));
    } finally {
      child.kill('SIGINT');
    }

    expect(await exited).toBe(0);
    // The history came first (the creation's operation entries), each entry once, all of this instance.
    expect(entries.length).toBeGreaterThan(1);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.instanceId))).toEqual(new Set([kv.id]));
  });

  it('saves a script from stdin and reads it back', async () => {
    const text = 'put /cli/flag on\nget /cli/flag\n';
    expect((await warden(['script', 'put', 'cli-kv'], { input: text })).code).toBe(0);

    expect((await json<{ script: string }>(['script', 'get', 'cli-kv'])).script).toBe(text);
  });

  it('runs the saved script in a sandbox copy and prints each command with its result', async () => {
    const ran = await warden(['script', 'run', 'cli-kv', '--source', 'live']);

    expect(ran.stderr).toMatch(/Running in a sandbox of cli-kv/);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^-- line 1 .*put \/cli\/flag on$/m);
    expect(ran.stdout).toMatch(/^-- line 2 .*get \/cli\/flag$/m);
    expect(ran.stdout).toMatch(/\/cli\/flag\s+on/);
    expect(ran.stdout).toMatch(/succeeded on a copy of the live data: 2 statement\(s\), 0 failed/);
  });

  it('exits 1 when a statement of the script fails, with the statement and its error in --json', async () => {
    const ran = await warden(['--json', 'script', 'run', 'cli-kv', '-', '--source', 'live'], { input: 'frobnicate /x\n' });

    expect(ran.code).toBe(1);
    const run = JSON.parse(ran.stdout);
    expect(run).toMatchObject({ failures: 1, results: [{ line: 1, error: { message: expect.any(String) } }] });
    expect(ran.stderr).toMatch(/The script run \w+ \(1 statement\(s\) failed\)/);
  });

  it("shows a 409's reason: deleting a running instance without --force, databases of etcd", async () => {
    const ran = await warden(['instances', 'delete', 'cli-kv', '--yes']);

    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^warden: Conflict: .+/);
    expect(await warden(['databases', 'list', 'cli-kv'])).toMatchObject({ code: 1, stderr: 'warden: Conflict: Only PostgreSQL instances have databases and roles.\n' });
  });
});

describe('exit codes and messages', () => {
  it('exits 2 for usage errors and 0 for help', async () => {
    const unknown = await warden(['instances', 'list', '--no-such-flag']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--no-such-flag'/);
    expect((await warden(['instances', 'create', '--name', 'x'])).code).toBe(2);
    expect((await warden(['instances', 'create', '--name', 'abc', '--type', 'mysql'])).code).toBe(2);
    const help = await warden(['backups', 'download', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: warden backups download/);
  });

  it('names an instance it cannot find', async () => {
    const ran = await warden(['instances', 'show', 'no-such-instance']);

    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe('warden: Not found: no instance you can see is named or has the id "no-such-instance".\n');
  });

  it('says when the server cannot be reached', async () => {
    const port = await closedPort();
    const ran = await warden(['instances', 'list'], { env: { WARDEN_URL: `http://127.0.0.1:${port}`, WARDEN_TOKEN: 'anything' } });

    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`warden: cannot reach http://127.0.0.1:${port}: connection refused\n`);
  });

  it('signs out: the session ends on the server and the tokens are forgotten', async () => {
    const { accessToken } = JSON.parse(fs.readFileSync(credentialsFile(), 'utf8'));

    expect((await warden(['logout'])).code).toBe(0);

    expect(fs.existsSync(credentialsFile())).toBe(false);
    const after = await warden(['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/Not signed in: run `warden login`/);
    const replayed = await warden(['whoami'], { env: { WARDEN_URL: baseUrl, WARDEN_TOKEN: accessToken } });
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toMatch(/WARDEN_TOKEN was refused/);
  });
});
