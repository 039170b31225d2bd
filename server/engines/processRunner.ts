import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The OS account engine processes run as: initdb refuses root, so a root server hands them to `postgres`. */
export interface EngineUser {
  uid: number;
  gid: number;
  name: string;
}

let cachedUser: EngineUser | null | undefined;

/** null when the server is not root (engines then run as the server's own user). */
export function engineUser(): EngineUser | null {
  if (cachedUser !== undefined) return cachedUser;
  if (process.getuid?.() !== 0) return (cachedUser = null);
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    cachedUser = { uid, gid, name: 'postgres' };
  } catch {
    throw new EngineError('The server runs as root and there is no postgres user to run engines as: install the Debian package postgresql.');
  }
  return cachedUser;
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
}

function identity() {
  const user = engineUser();
  return user ? { uid: user.uid, gid: user.gid } : {};
}

/** Runs a tool as the engine user and answers its output; a non-zero exit becomes an EngineError with stderr. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        ...identity(),
        cwd: options.cwd ?? '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const words = (stderr || stdout || error.message).trim();
          reject(new EngineError(`${command.split('/').pop()} failed: ${words}`));
        } else resolve({ stdout, stderr });
      },
    );
  });
}

/** Starts a long-running engine process detached from the server, so it outlives a server restart. */
export function spawnDetached(command: string, args: string[], logFile: string, options: RunOptions = {}): number {
  const out = fs.openSync(logFile, 'a');
  try {
    const child = spawn(command, args, {
      ...identity(),
      cwd: options.cwd ?? '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
      detached: true,
      stdio: ['ignore', out, out],
    });
    if (child.pid === undefined) throw new EngineError(`${command} could not be started.`);
    child.unref();
    return child.pid;
  } finally {
    fs.closeSync(out);
  }
}

/** Hands a folder or file to the engine user (no-op when the server is not root). */
export function giveToEngineUser(target: string): void {
  const user = engineUser();
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
 * Starts a tool as the engine user with pipes, for output the server streams (pg_dump's archive)
 * or input it feeds (psql). The child dies with the server: its pipes break when the server goes.
 */
export function spawnTool(command: string, args: string[], options: RunOptions = {}) {
  return spawn(command, args, {
    ...identity(),
    cwd: options.cwd ?? '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Hands a whole tree to the engine user (no-op when the server is not root). */
export function giveTreeToEngineUser(root: string): void {
  if (!engineUser()) return;
  giveToEngineUser(root);
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    giveToEngineUser(path.join(entry.parentPath, entry.name));
  }
}

export interface StreamedRun {
  env?: Record<string, string>;
  /** Bytes written so far, after each chunk. */
  onBytes?: (bytes: number) => void;
  /** Each line the tool writes to stderr (e.g. pg_dump -v's progress). */
  onStderrLine?: (line: string) => void;
}

/**
 * Runs a tool as the engine user with its stdout written to `file` by the server (so the file
 * needs no engine-user access, and the tool dies of a broken pipe if the server does). Rejects with
 * the tool's last stderr lines on a non-zero exit; the file is left for the caller to remove.
 */
export function runToFile(command: string, args: string[], file: string, options: StreamedRun = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(command, args, { env: options.env });
    const out = fs.createWriteStream(file, { mode: 0o600 });
    const stderr: string[] = [];
    let pending = '';
    let bytes = 0;
    let failed: Error | null = null;
    child.stdin.end();
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      options.onBytes?.(bytes);
    });
    child.stdout.pipe(out);
    child.stderr.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        stderr.push(line);
        if (stderr.length > 50) stderr.shift();
        options.onStderrLine?.(line);
      }
    });
    out.on('error', (error) => {
      failed = error;
      child.kill('SIGTERM');
    });
    child.on('error', (error) => (failed = error));
    child.on('close', (code, signal) => {
      const finish = () => {
        if (failed) return reject(failed);
        if (code !== 0) {
          const words = [...stderr, pending].filter((l) => l && !/^\S+: (dumping|reading|last built-in|identifying|finding|flagging|saving|started|processing)/.test(l));
          return reject(new EngineError(`${command.split('/').pop()} failed (${signal ?? `exit ${code}`}): ${words.slice(-6).join('\n').trim()}`));
        }
        resolve(bytes);
      };
      if (out.writableFinished) finish();
      else out.once('finish', finish).once('close', finish);
    });
  });
}
