import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Every engine process and every tool run for an instance is confined (DESIGN §11): bubblewrap gives
// it its own mount, PID and IPC namespaces, in which the host's file system is read-only, /tmp and
// /dev/shm are its own, only its instance folder (and the folders a call names) can be written, and
// no other process can be seen. Inside, prlimit caps its processes, open files and memory, and
// setpriv drops root for the instance's user. bwrap starts as root (it needs no user namespaces
// then), so this needs a root server with bubblewrap installed; without either, tools run as the
// instance's user only, and the server says so at start and on the Debug page.

/** Per-instance limits, from the instance's group or the defaults. */
export interface ProcessLimits {
  /** Processes (and threads) the instance's user may have at once (RLIMIT_NPROC). */
  maxProcesses: number;
  /** Open files per process (RLIMIT_NOFILE). */
  maxOpenFiles: number;
  /** Address space per process in bytes (RLIMIT_AS), or null for none. */
  maxMemoryBytes: number | null;
}

/**
 * What an instance gets unless its group says otherwise. 16 GiB of address space per process: etcd
 * needs over 10 GiB of it (etcd.ts), a PostgreSQL backend far less.
 */
export const defaultLimits: ProcessLimits = { maxProcesses: 512, maxOpenFiles: 4096, maxMemoryBytes: 16 * 1024 ** 3 };

/**
 * Where an instance's limits are kept, written from its group's settings: beside the instance
 * folders in a folder only root may enter, as its user could replace any file in its own folder.
 */
const limitsFile = (dir: string) => path.join(path.dirname(dir), '.limits', `${path.basename(dir)}.json`);

/** The instance's limits: as its group last set them, else the defaults. */
export function instanceLimits(dir: string): ProcessLimits {
  try {
    const saved = JSON.parse(fs.readFileSync(limitsFile(dir), 'utf8')) as Partial<ProcessLimits>;
    return { ...defaultLimits, ...Object.fromEntries(Object.entries(saved).filter(([name]) => Object.hasOwn(defaultLimits, name))) };
  } catch {
    return defaultLimits;
  }
}

/** Forgets a removed instance's limits, so an instance made again in its place starts from the defaults. */
export function removeInstanceLimits(dir: string): void {
  fs.rmSync(limitsFile(dir), { force: true });
}

/**
 * Keeps an instance's limits (null fields: the defaults) for every process started for it from now
 * on; a running engine takes them at its next start. No-op when its folder does not exist yet.
 */
export function writeInstanceLimits(dir: string, limits: Partial<Record<keyof ProcessLimits, number | null>>): void {
  if (!fs.existsSync(dir)) return;
  fs.mkdirSync(path.dirname(limitsFile(dir)), { recursive: true, mode: 0o700 });
  const set = Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== null && value !== undefined));
  const temporary = `${limitsFile(dir)}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(set), { mode: 0o600 });
  fs.renameSync(temporary, limitsFile(dir));
}

/** Who runs the command and what it may write. */
export interface Confined {
  uid: number;
  gid: number;
  /** The instance folder: the one place it may write, besides `binds`. */
  dir: string;
  limits?: ProcessLimits;
}

export interface ConfineOptions {
  /** Further folders or files the command may write (a backup's staging folder). */
  binds?: string[];
  /** Whether the command outlives the server (an engine) or dies with it (a tool). */
  detached?: boolean;
}

export interface ConfinementStatus {
  /** Whether engine processes run inside bubblewrap. */
  active: boolean;
  /** Why not, for the operator, or null. */
  reason: string | null;
}

const bwrap = '/usr/bin/bwrap';
let known: ConfinementStatus | undefined;

/** Whether confinement can be used here: checked once, by confining `true`. */
export function confinementStatus(): ConfinementStatus {
  if (known) return known;
  const cannot = cannotConfine();
  if (cannot) return (known = cannot);
  try {
    execFileSync(bwrap, probeArgs(), { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    return (known = { active: true, reason: null });
  } catch (error) {
    return (known = probeFailed(error));
  }
}

/** The same check without holding up the process: a start makes it right after listening. */
export async function checkConfinement(): Promise<ConfinementStatus> {
  if (known) return known;
  const cannot = cannotConfine();
  if (cannot) return (known = cannot);
  const status = await new Promise<ConfinementStatus>((resolve) =>
    execFile(bwrap, probeArgs(), { timeout: 10_000 }, (error, _stdout, stderr) =>
      resolve(error ? probeFailed(Object.assign(error, { stderr })) : { active: true, reason: null }),
    ),
  );
  return (known ??= status);
}

function cannotConfine(): ConfinementStatus | null {
  if (process.getuid?.() !== 0) return { active: false, reason: 'The server does not run as root: engines run as the server\'s own user, unconfined.' };
  if (!fs.existsSync(bwrap)) return { active: false, reason: 'bubblewrap is not installed (Debian package bubblewrap): engines run as their instance\'s user, unconfined.' };
  return null;
}

const probeArgs = () => [...namespaceArgs(), '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', '/bin/true'];

function probeFailed(error: unknown): ConfinementStatus {
  const words = String((error as { stderr?: Buffer | string }).stderr || error).trim();
  return { active: false, reason: `bubblewrap cannot run here (${words}): engines run as their instance's user, unconfined.` };
}

function namespaceArgs() {
  return ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
}

/** Every folder above `target`, outermost first, below the root. */
function ancestors(target: string): string[] {
  const result: string[] = [];
  for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) result.unshift(dir);
  return result;
}

const underTmp = (target: string) => target === '/tmp' || target.startsWith('/tmp/');

/**
 * The command line that runs `command args` confined as `who`: bwrap's options, prlimit, setpriv,
 * then the command. Folders under /tmp (its own tmpfs inside) are made again as mount points.
 */
export function confinedCommand(who: Confined, command: string, args: string[], options: ConfineOptions = {}): { command: string; args: string[] } {
  const limits = who.limits ?? instanceLimits(who.dir);
  const writable = [who.dir, ...(options.binds ?? [])].map((p) => path.resolve(p));
  const mounts: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--perms', '1777', '--tmpfs', '/tmp', '--perms', '1777', '--tmpfs', '/dev/shm'];
  const made = new Set<string>();
  for (const target of writable) {
    // The host's /tmp is hidden: a folder in it is bound onto a path made in the new tmpfs.
    if (underTmp(target)) {
      for (const dir of ancestors(target).filter((d) => underTmp(d) && d !== '/tmp' && !made.has(d))) {
        made.add(dir);
        mounts.push('--perms', '0755', '--dir', dir);
      }
    }
    mounts.push('--bind', target, target);
  }
  const prlimit = [
    '/usr/bin/prlimit',
    `--nproc=${limits.maxProcesses}`,
    `--nofile=${limits.maxOpenFiles}`,
    '--core=0',
    ...(limits.maxMemoryBytes === null ? [] : [`--as=${limits.maxMemoryBytes}`]),
    '--',
  ];
  const setpriv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--'];
  return {
    command: bwrap,
    args: [
      ...namespaceArgs(),
      '--new-session',
      // A tool dies with the server; an engine is meant to outlive it and is adopted again.
      ...(options.detached ? [] : ['--die-with-parent']),
      ...mounts,
      '--chdir', '/',
      '--',
      ...prlimit,
      ...setpriv,
      command,
      ...args,
    ],
  };
}

/** A process's real, effective, saved and filesystem uids, or none once it is gone. */
export function processUids(pid: number): number[] {
  try {
    return /^Uid:\s+(.*)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1].split(/\s+/).map(Number) ?? [];
  } catch {
    return [];
  }
}

/**
 * The host pid of the command a detached bwrap runs: bwrap forks its own init into the new PID
 * namespace, which forks the command (prlimit and setpriv exec into it, keeping the pid). The pid in
 * the engine's own files (postmaster.pid) is the one inside the namespace, useless outside.
 * It is answered once setpriv has made it `uid`'s: before that it is still root's, so neither a
 * look for the user's processes nor a removal that kills them would find it.
 */
export async function confinedPid(bwrapPid: number, uid: number, timeoutMs = 5_000): Promise<number> {
  const children = (pid: number): number[] => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const runsAs = (pid: number): boolean => {
    const ids = processUids(pid);
    return ids.length > 0 && ids.every((id) => id === uid);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const init = children(bwrapPid)[0];
    const command = init === undefined ? undefined : children(init)[0];
    if (command !== undefined && runsAs(command)) return command;
    if (Date.now() > deadline || !fs.existsSync(`/proc/${bwrapPid}`)) throw new Error('The confined engine process did not start.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
