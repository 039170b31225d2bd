import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { confinementStatus } from '../../../server/engines/confinement';
import { isAlive, run, spawnDetached } from '../../../server/engines/processRunner';
import { instanceUser, instanceUserName, processesOf, removeInstanceUser, type EngineUser } from '../../../server/engines/instanceUsers';

// What an instance's processes can reach, tried with real processes under bubblewrap (as root, as
// CI runs): another instance's files and processes, the host's files, its own /tmp, its limits,
// a process it leaves behind, and a tool whose server is killed.

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

let root: string;
let alpha: { id: string; dir: string };
let beta: { id: string; dir: string };
let alphaUser: EngineUser;
let betaUser: EngineUser;

/** A shell line as the instance's user, confined; answers its output, or the failure's words. */
async function sh(user: EngineUser, line: string): Promise<string> {
  try {
    return (await run(user, '/bin/sh', ['-c', line])).stdout.trim();
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

function userExists(name: string) {
  return spawnSync('getent', ['passwd', name]).status === 0;
}

async function until(check: () => boolean, ms = 5_000) {
  for (let waited = 0; waited < ms && !check(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

beforeAll(() => {
  if (!asRoot) return;
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-confinement-'));
  fs.chmodSync(root, 0o711);
  const made = (name: string) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { mode: 0o700 });
    const rt = { id: `confinement-${name}-${path.basename(root)}`, dir };
    const user = instanceUser(rt)!;
    fs.chownSync(dir, user.uid, user.gid);
    fs.writeFileSync(path.join(dir, 'secret.txt'), `${name}'s data\n`);
    fs.chownSync(path.join(dir, 'secret.txt'), user.uid, user.gid);
    return { rt, user };
  };
  ({ rt: alpha, user: alphaUser } = made('alpha'));
  ({ rt: beta, user: betaUser } = made('beta'));
});

afterAll(async () => {
  if (!asRoot) return;
  for (const rt of [alpha, beta]) await removeInstanceUser(rt.id).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

describeAsRoot('an instance’s confined processes', () => {
  it('run confined here', () => {
    expect(confinementStatus()).toEqual({ active: true, reason: null });
  });

  it('run as the instance’s user with no capabilities', async () => {
    expect(await sh(alphaUser, 'id -u; id -G; grep CapEff /proc/self/status')).toBe(`${alphaUser.uid}\n${alphaUser.gid}\nCapEff:\t0000000000000000`);
  });

  it('write their own folder, and nothing else of the host', async () => {
    expect(await sh(alphaUser, `echo kept > ${alpha.dir}/made.txt && cat ${alpha.dir}/secret.txt`)).toBe("alpha's data");
    expect(fs.readFileSync(path.join(alpha.dir, 'made.txt'), 'utf8')).toBe('kept\n');
    expect(fs.statSync(path.join(alpha.dir, 'made.txt')).uid).toBe(alphaUser.uid);
    for (const target of ['/var/tmp/warden-planted', '/etc/warden-planted', `${root}/planted`]) {
      expect(await sh(alphaUser, `touch ${target} && echo wrote`)).toMatch(/^failed: .*(Read-only file system|Permission denied|No such file)/);
      expect(fs.existsSync(target)).toBe(false);
    }
  });

  it('have a /tmp and /dev/shm of their own, gone when they end', async () => {
    expect(await sh(alphaUser, 'echo x > /tmp/warden-left && echo y > /dev/shm/warden-left && ls /tmp; ls /dev/shm')).toBe(
      // Of the host's /tmp, only the way to its own folder.
      `${path.basename(root)}\nwarden-left\nwarden-left`,
    );
    expect(fs.existsSync('/tmp/warden-left')).toBe(false);
    expect(fs.existsSync('/dev/shm/warden-left')).toBe(false);
  });

  it('cannot list or read another instance’s folder', async () => {
    expect(await sh(alphaUser, `ls ${beta.dir}`)).toMatch(/^failed: .*(No such file|Permission denied)/);
    expect(await sh(alphaUser, `cat ${beta.dir}/secret.txt`)).toMatch(/^failed: .*(No such file|Permission denied)/);
  });

  it('see no process but their own, and cannot signal another instance’s', async () => {
    const log = path.join(beta.dir, 'sleep.log');
    const betaPid = await spawnDetached(betaUser, '/bin/sleep', ['300'], log);
    try {
      expect(isAlive(betaPid)).toBe(true);
      expect(processesOf(betaUser.uid)).toContain(betaPid);
      // Only the namespace's init and the shell (and ps) are there: no host process, no other instance's.
      const seen = (await sh(alphaUser, 'ps -e -o comm=')).split('\n');
      expect(seen).not.toContain('sleep');
      expect(seen.length).toBeLessThanOrEqual(3);
      expect(await sh(alphaUser, `kill -0 ${betaPid}`)).toMatch(/^failed: /);
      expect(isAlive(betaPid)).toBe(true);
    } finally {
      process.kill(betaPid, 'SIGKILL');
    }
  });

  it('are answered by spawnDetached only once they run as the instance’s user', async () => {
    // Before setpriv changes user the command is root's, invisible to a look for the user's processes (or a removal's kill).
    for (let round = 0; round < 10; round++) {
      const pid = await spawnDetached(betaUser, '/bin/sleep', ['300'], path.join(beta.dir, 'sleep.log'));
      try {
        expect(processesOf(betaUser.uid)).toContain(pid);
      } finally {
        process.kill(pid, 'SIGKILL');
      }
    }
  });

  it('are held to the limits: processes, open files, no core files', async () => {
    const limits = (user: EngineUser) => sh(user, "grep -E '^Max (processes|open files|core file size|address space)' /proc/self/limits | awk '{print $(NF-1)}'");
    // Soft and hard alike; one line each: core file size, processes, open files, address space.
    expect(await limits(alphaUser)).toBe(`0\n512\n4096\n${16 * 1024 ** 3}`);
    const tight = { ...alphaUser, limits: { maxProcesses: 512, maxOpenFiles: 64, maxMemoryBytes: 256 * 1024 * 1024 } };
    expect(await limits(tight)).toBe(`0\n512\n64\n${256 * 1024 * 1024}`);
  });
});

describeAsRoot('removing an instance’s user', () => {
  it('kills what the tenant left running and removes its files, so userdel succeeds', async () => {
    const id = `confinement-gone-${path.basename(root)}`;
    const dir = path.join(root, 'gone');
    fs.mkdirSync(dir, { mode: 0o700 });
    const user = instanceUser({ id, dir })!;
    // As a process that escaped its sandbox would: outside any namespace, in its own session, with a file in the host's /tmp.
    const escaped = spawn('/bin/sh', ['-c', 'touch /tmp/warden-escaped-$(id -u); exec sleep 300'], { uid: user.uid, gid: user.gid, detached: true, stdio: 'ignore' });
    escaped.unref();
    const planted = `/tmp/warden-escaped-${user.uid}`;
    expect(await until(() => fs.existsSync(planted))).toBe(true);
    expect(isAlive(escaped.pid!)).toBe(true);

    fs.rmSync(dir, { recursive: true, force: true });
    await removeInstanceUser(id);
    expect(await until(() => !isAlive(escaped.pid!))).toBe(true);
    expect(processesOf(user.uid)).toEqual([]);
    expect(fs.existsSync(planted)).toBe(false);
    expect(userExists(instanceUserName(id))).toBe(false);
  });

  it('leaves no tool running when the server is killed with SIGKILL', async () => {
    const id = `confinement-orphan-${path.basename(root)}`;
    const dir = path.join(root, 'orphan');
    fs.mkdirSync(dir, { mode: 0o700 });
    const user = instanceUser({ id, dir })!;
    fs.chownSync(dir, user.uid, user.gid);
    const tsx = path.join(__dirname, '../../../node_modules/.bin/tsx');
    const server = spawn(tsx, [path.join(__dirname, 'fixtures/toolOfServer.ts'), id, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
    expect(await until(() => processesOf(user.uid).length > 0)).toBe(true);
    // tsx runs the script in a child node process: kill the whole group, as a crash of the host would.
    execFileSync('pkill', ['-KILL', '-P', String(server.pid)]);
    server.kill('SIGKILL');
    expect(await until(() => processesOf(user.uid).length === 0)).toBe(true);
    await removeInstanceUser(id);
  });
});
