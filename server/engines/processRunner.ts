import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { confinedCommand, confinedPid, confinementStatus, type ProcessLimits } from './confinement';

/**
 * The OS account an instance's engine processes run as. A root server gives every instance its own
 * system user (DESIGN §11), so one compromised instance cannot read another's files; null means the
 * server's own user (a server that is not root runs everything as itself).
 */
export interface EngineUser {
  uid: number;
  gid: number;
  name: string;
  /** The instance folder: what its confined processes may write (confinement.ts). */
  dir?: string;
  limits?: ProcessLimits;
}

const isRoot = () => process.getuid?.() === 0;
// useradd and userdel live in /usr/sbin, which a service's PATH may lack.
const adminEnv = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };
const uuidLike = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;

/**
 * The system user name of an instance: `warden-` and the first 12 hex digits of its id (a UUID), so
 * an operator can tell whose processes they are; any other id (a scratch instance) is hashed.
 * Always 19 characters of [a-z0-9-], valid for useradd.
 */
export function instanceUserName(id: string): string {
  const hex = uuidLike.test(id) ? id.replace(/-/g, '').slice(0, 12).toLowerCase() : createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `warden-${hex}`;
}

interface PasswdEntry extends EngineUser {
  comment: string;
}

function passwd(name: string): PasswdEntry | null {
  try {
    const [, , uid, gid, comment] = execFileSync('getent', ['passwd', name], { env: adminEnv }).toString().trim().split(':');
    return { name, uid: Number(uid), gid: Number(gid), comment };
  } catch {
    return null;
  }
}

const instanceUsers = new Map<string, EngineUser>();
const ownerComment = (id: string) => `Warden instance ${id}`;

/** The instance's own system user, created on first use (root only). */
function ensureInstanceUser(id: string): EngineUser {
  const known = instanceUsers.get(id);
  if (known) return known;
  const name = instanceUserName(id);
  let entry = passwd(name);
  if (!entry) {
    try {
      execFileSync(
        'useradd',
        ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', '--comment', ownerComment(id), name],
        { env: adminEnv, stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (error) {
      throw new EngineError(`The system user ${name} for the instance could not be created: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
    }
    entry = passwd(name);
    if (!entry) throw new EngineError(`The system user ${name} was created but cannot be found.`);
  }
  // Names are short hashes: a user of that name made for anything else is never taken over.
  if (entry.comment !== ownerComment(id)) {
    throw new EngineError(`The system user ${name} exists and does not belong to this instance (its comment is "${entry.comment}"): remove or rename it.`);
  }
  const user = { uid: entry.uid, gid: entry.gid, name };
  instanceUsers.set(id, user);
  return user;
}

let legacy: EngineUser | null | undefined;

/** The single `postgres` user that ran every instance before instances had their own users. */
function legacyUser(): EngineUser | null {
  if (legacy === undefined) legacy = passwd('postgres');
  return legacy ? { uid: legacy.uid, gid: legacy.gid, name: legacy.name } : null;
}

/** The legacy user when it still owns the instance's data folder (not migrated yet), else null. */
function legacyOwner(dir: string): EngineUser | null {
  const old = legacyUser();
  if (!old) return null;
  try {
    return fs.statSync(path.join(dir, 'data')).uid === old.uid ? old : null;
  } catch {
    return null;
  }
}

/**
 * Who runs an instance's engine and tools: its own system user, created on first use, or null when
 * the server is not root. An instance made before per-instance users keeps `postgres` (which owns
 * its files and may still run its engine) until `migrateInstanceFolder` hands it over at a start.
 */
export function instanceUser(rt: RuntimeLike): EngineUser | null {
  if (!isRoot()) return null;
  return within(rt, legacyOwner(rt.dir) ?? ensureInstanceUser(rt.id));
}

/** What instanceUser needs of an instance. */
interface RuntimeLike {
  id: string;
  dir: string;
  limits?: ProcessLimits;
}

/** The user as one instance's processes run: confined to that instance's folder, with its limits. */
const within = (rt: RuntimeLike, user: EngineUser): EngineUser => ({ ...user, dir: rt.dir, ...(rt.limits && { limits: rt.limits }) });

/**
 * The user an existing instance runs as, without creating one: for work on an instance that has
 * run (a backup's staging folder), where a missing user means there is nothing of its own to serve.
 */
export function existingInstanceUser(rt: RuntimeLike): EngineUser | null {
  if (!isRoot()) return null;
  const legacyRun = legacyOwner(rt.dir);
  if (legacyRun) return within(rt, legacyRun);
  const known = instanceUsers.get(rt.id);
  if (known) return within(rt, known);
  const entry = passwd(instanceUserName(rt.id));
  return entry && entry.comment === ownerComment(rt.id) ? within(rt, ensureInstanceUser(rt.id)) : null;
}

/**
 * Gives a stopped instance's folder to its own user when another owns its data: `postgres` (an
 * instance made before per-instance users), or a user removed and made again with a new uid. What
 * that owner had becomes the instance user's (root's secrets stay root's), the data folder last so an
 * interrupted migration is finished by the next start. Answers whether anything moved.
 */
export function migrateInstanceFolder(rt: { id: string; dir: string }): boolean {
  if (!isRoot()) return false;
  const data = path.join(rt.dir, 'data');
  let previous: number;
  try {
    previous = fs.statSync(data).uid;
  } catch {
    return false;
  }
  const user = ensureInstanceUser(rt.id);
  if (previous === user.uid || previous === 0) return false;
  for (const entry of fs.readdirSync(rt.dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (file !== data && fs.lstatSync(file).uid === previous) fs.lchownSync(file, user.uid, user.gid);
  }
  fs.chownSync(rt.dir, user.uid, user.gid);
  fs.chmodSync(rt.dir, 0o700);
  fs.chownSync(data, user.uid, user.gid);
  return true;
}

/** The pids of every process that runs as `uid` (any of its real, effective, saved or file-system ids). */
export function processesOf(uid: number): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ids = /^Uid:\s+(.*)$/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))?.[1].split(/\s+/).map(Number) ?? [];
      if (ids.includes(uid)) found.push(Number(name));
    } catch {
      // Gone while the list was read.
    }
  }
  return found;
}

/**
 * Ends every process of `uid` with SIGKILL, again until none is left (one may fork while another is
 * killed), so a removal never fails on a process a tenant left running in the background.
 */
export async function killProcessesOf(uid: number): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = processesOf(uid).filter(isAlive);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new EngineError(`Processes of user ${uid} are still running after being killed.`);
}

/**
 * Ends whatever the instance's own user still runs while its engine is down, before the engine
 * starts again: a postmaster killed with SIGKILL leaves its backends behind, attached to shared
 * memory PostgreSQL would no longer see (each start has an IPC namespace of its own), so its
 * interlock against two servers on one data folder could not find them. Never the shared legacy user.
 */
export async function endLeftovers(rt: RuntimeLike): Promise<void> {
  const user = instanceUser(rt);
  if (user && user.name === instanceUserName(rt.id)) await killProcessesOf(user.uid);
}

/** The host's folders any user may write: a removed instance's user leaves nothing there. */
const sharedWritable = ['/tmp', '/var/tmp', '/dev/shm', '/dev/mqueue'];

/** Removes what `uid` owns in the shared writable folders (an unconfined tool could write there). */
function removeFilesOf(uid: number) {
  const roots = sharedWritable.filter((root) => fs.existsSync(root));
  // find's exit status is not 0 when it met something it could not remove; what it could is gone.
  spawnSync('find', [...roots, '-xdev', '-user', String(uid), '-delete'], { env: adminEnv, stdio: 'ignore', timeout: 60_000 });
}

/**
 * Removes an instance's system user once its folder is gone (no-op when not root or never made):
 * its processes are killed and its files in the shared folders removed first, so the next user
 * given the same uid inherits nothing.
 */
export async function removeInstanceUser(id: string): Promise<void> {
  instanceUsers.delete(id);
  if (!isRoot()) return;
  const name = instanceUserName(id);
  const entry = passwd(name);
  if (!entry || entry.comment !== ownerComment(id)) return;
  await killProcessesOf(entry.uid);
  removeFilesOf(entry.uid);
  try {
    execFileSync('userdel', [name], { env: adminEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new EngineError(`The system user ${name} could not be removed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
  }
}

/** An engine operation that failed, with the tool's own words for the operator. */
export class EngineError extends Error {}

export interface RunResult {
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  cwd?: string;
  /** Ends the tool (SIGTERM) when aborted, e.g. once the server it talks to is gone. */
  signal?: AbortSignal;
  /** Folders or files outside the instance folder that a confined tool may write (a staging folder). */
  binds?: string[];
}

/**
 * How a command runs as `user`: confined (confinement.ts) when it is an instance's and confinement
 * works here, else as the user itself (or as the server, for null), from `/` unless told, with a
 * minimal environment.
 */
function launch(user: EngineUser | null, command: string, args: string[], options: RunOptions & { detached?: boolean }) {
  const base = { cwd: options.cwd ?? '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env } };
  if (user?.dir && confinementStatus().active) {
    const confined = confinedCommand({ uid: user.uid, gid: user.gid, dir: user.dir, limits: user.limits }, command, args, options);
    return { ...confined, confined: true, options: base };
  }
  return { command, args, confined: false, options: { ...base, ...(user && { uid: user.uid, gid: user.gid }) } };
}

const toolName = (command: string) => command.split('/').pop();

/** Runs a tool as `user` (see instanceUser) and answers its output; a non-zero exit becomes an EngineError with stderr. */
export function run(user: EngineUser | null, command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const how = launch(user, command, args, options);
  return new Promise((resolve, reject) => {
    execFile(
      how.command,
      how.args,
      {
        ...how.options,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.signal && { signal: options.signal }),
      },
      (error, stdout, stderr) => {
        if (error) {
          const words = (stderr || stdout || error.message).trim();
          reject(new EngineError(`${toolName(command)} failed: ${words}`));
        } else resolve({ stdout, stderr });
      },
    );
  });
}

/**
 * Starts a long-running engine process as `user`, detached from the server, so it outlives a server
 * restart. Answers the engine's own pid on the host (inside its confinement, when confined).
 */
export async function spawnDetached(user: EngineUser | null, command: string, args: string[], logFile: string, options: RunOptions = {}): Promise<number> {
  const out = fs.openSync(logFile, 'a');
  const how = launch(user, command, args, { ...options, detached: true });
  let pid: number;
  try {
    const child = spawn(how.command, how.args, { ...how.options, detached: true, stdio: ['ignore', out, out] });
    // A binary that cannot be started also emits 'error' later: the throw below reports it.
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new EngineError(`${command} could not be started.`);
    child.unref();
    pid = child.pid;
  } finally {
    fs.closeSync(out);
  }
  if (!how.confined) return pid;
  try {
    return await confinedPid(pid);
  } catch {
    throw new EngineError(`${toolName(command)} could not be started: see its log.`);
  }
}

/** Hands a folder or file to an instance's user (no-op for the server's own user). */
export function giveToEngineUser(user: EngineUser | null, target: string): void {
  if (user) fs.chownSync(target, user.uid, user.gid);
}

/** Whether a process runs. A killed engine whose parent never reaps it lingers as a zombie: that is dead too. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name: "123 (postgres) Z ...".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is a live process running `binary` (an engine's pid file may outlive the engine, and
 * the pid be taken by something else since).
 */
export function isProcessOf(pid: number, binary: string): boolean {
  if (!isAlive(pid)) return false;
  try {
    // A binary replaced by a package upgrade while it runs reads "… (deleted)".
    return fs.readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '') === fs.realpathSync(binary);
  } catch {
    return false;
  }
}

/**
 * Starts a tool as `user` with pipes, for output the server streams (pg_dump's archive)
 * or input it feeds (psql). The child dies with the server: confined, with bwrap's parent; else its
 * pipes break when the server goes.
 */
export function spawnTool(user: EngineUser | null, command: string, args: string[], options: RunOptions = {}) {
  const how = launch(user, command, args, options);
  const child = spawn(how.command, how.args, { ...how.options, stdio: ['pipe', 'pipe', 'pipe'] });
  // A tool that exits early (its server stopped) breaks its pipes: EPIPE on a write must not take the
  // server down; the exit code and stderr tell the caller what happened.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.on('error', () => undefined);
  return child;
}

/** Hands a whole tree to an instance's user (no-op for the server's own user). */
export function giveTreeToEngineUser(user: EngineUser | null, root: string): void {
  if (!user) return;
  giveToEngineUser(user, root);
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    giveToEngineUser(user, path.join(entry.parentPath, entry.name));
  }
}

export interface StreamedRun {
  env?: Record<string, string>;
  /** Bytes written so far, read from the file at each stderr line and a few times a second. */
  onBytes?: (bytes: number) => void;
  /** Each line the tool writes to stderr (e.g. pg_dump -v's progress). */
  onStderrLine?: (line: string) => void;
  /** Exit codes besides 0 that mean the tool did its work (tar's 1: a file changed while it was read). */
  okExitCodes?: number[];
  /** As RunOptions.binds. */
  binds?: string[];
}

/** How often runToFile reads the size of the file being written. */
const fileProgressMs = 250;

/**
 * Runs a tool as `user` with its stdout being `file`, which the server creates (it must not exist: a
 * planted link is not followed) and hands over as a descriptor: the file needs no instance-user access
 * and its bytes never pass through the server. Only stderr is a pipe, so a tool outliving the server
 * dies at its next progress line. Rejects with the tool's last stderr lines on an exit other than 0
 * and okExitCodes; the file is left for the caller to remove. Answers the file's size.
 */
export function runToFile(user: EngineUser | null, command: string, args: string[], file: string, options: StreamedRun = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
    } catch (error) {
      return reject(error as Error);
    }
    const sizeOf = () => fs.fstatSync(fd).size;
    let child: ReturnType<typeof spawn>;
    try {
      const how = launch(user, command, args, { env: options.env, binds: options.binds });
      child = spawn(how.command, how.args, { ...how.options, stdio: ['ignore', fd, 'pipe'] });
    } catch (error) {
      fs.closeSync(fd);
      return reject(error as Error);
    }
    const report = () => options.onBytes?.(sizeOf());
    const ticker = options.onBytes ? setInterval(report, fileProgressMs) : null;
    const stderr: string[] = [];
    let pending = '';
    let failed: Error | null = null;
    child.stderr!.on('error', () => undefined);
    child.stderr!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        stderr.push(line);
        if (stderr.length > 50) stderr.shift();
        options.onStderrLine?.(line);
      }
      report();
    });
    child.on('error', (error) => (failed = error));
    child.on('close', (code, signal) => {
      if (ticker) clearInterval(ticker);
      const bytes = sizeOf();
      fs.closeSync(fd);
      if (failed) return reject(failed);
      const succeeded = code === 0 || (code !== null && (options.okExitCodes ?? []).includes(code));
      if (!succeeded) {
        const words = [...stderr, pending].filter((l) => l && !/^\S+: (dumping|reading|last built-in|identifying|finding|flagging|saving|started|processing)/.test(l));
        return reject(new EngineError(`${toolName(command)} failed (${signal ?? `exit ${code}`}): ${words.slice(-6).join('\n').trim()}`));
      }
      options.onBytes?.(bytes);
      resolve(bytes);
    });
  });
}
