import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { confinedCommand, confinedPid, confinementStatus } from './confinement';
import type { EngineUser } from './instanceUsers';

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
          // A tool ended by a signal says so, not bubblewrap's whole command line.
          const signal = (error as { signal?: string | null }).signal;
          const words = (stderr || stdout || (signal ? `it was ended by ${signal}` : error.message)).trim();
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
  if (!how.confined || !user) return pid;
  try {
    return await confinedPid(pid, user.uid);
  } catch {
    throw new EngineError(`${toolName(command)} could not be started: see its log.`);
  }
}

/** Hands a folder or file to an instance's user (no-op for the server's own user). */
export function giveToEngineUser(user: EngineUser | null, target: string): void {
  if (user) fs.chownSync(target, user.uid, user.gid);
}

/** The pid a pid file names on its first line (postmaster.pid has more lines), or null without one. */
export function readPidFile(file: string): number | null {
  try {
    const value = Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
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
