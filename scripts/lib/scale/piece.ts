import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';

/*
 * One process of the scale example (the store, a server, an agent, HAProxy): started in a process
 * group of its own with its output appended to a log file, and ready once `ready` says so. A
 * terminal's Ctrl-C therefore reaches the example alone, which stops the pieces in order; should the
 * example's process end first, every piece's group is killed on its way out.
 */

export interface PieceOptions {
  /** Names the piece in messages, e.g. `server-a`. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logFile: string;
  /** Whether the started piece answers as it should; errors count as not yet. */
  ready: () => Promise<boolean>;
  /** The signal `kill()` sends unless told otherwise (PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** Runs it as this system user (PostgreSQL refuses root). */
  user?: { uid: number; gid: number };
}

const live = new Set<ChildProcess>();
let guarding = false;

/** Synchronous, so that it also runs from process.on('exit'). */
function killLiveGroups() {
  for (const child of live) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  live.clear();
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of a log file, to show with an error. */
export function logTail(file: string, lines = 30): string {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return text.trimEnd().split('\n').slice(-lines).join('\n') || '(empty)';
}

export class Piece {
  private child: ChildProcess | null = null;

  constructor(private readonly options: PieceOptions) {
    if (!guarding) {
      guarding = true;
      process.on('exit', killLiveGroups);
    }
  }

  get name(): string {
    return this.options.name;
  }

  get running(): boolean {
    return this.child !== null && !hasExited(this.child);
  }

  /** Starts the piece and waits until it is ready; fails naming it, with the end of its log. */
  async start(timeoutMs = 90_000): Promise<void> {
    const { name, command, args, env, cwd, logFile, ready, user } = this.options;
    if (this.running) throw new Error(`${name} is running already`);
    const log = fs.openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', log, log], ...user });
    } finally {
      fs.closeSync(log);
    }
    this.child = child;
    const spawned: { error?: Error } = {};
    child.once('error', (error) => (spawned.error = error));
    if (child.pid !== undefined) live.add(child);
    child.once('exit', () => live.delete(child));

    const failure = (why: string) => new Error(`${name} ${why}; the end of ${logFile}:\n${logTail(logFile)}`);
    const deadline = Date.now() + timeoutMs;
    while (!(await ready().catch(() => false))) {
      if (spawned.error) throw failure(`could not be started (${spawned.error.message})`);
      if (hasExited(child)) throw failure(`ended (${child.exitCode ?? child.signalCode}) before it was ready`);
      if (Date.now() > deadline) {
        await this.kill('SIGKILL');
        throw failure(`was not ready within ${timeoutMs / 1000} s`);
      }
      await delay(250);
    }
  }

  /**
   * Sends the process (not its group: an agent's instances may outlive it) a signal and waits for it
   * to end; after `timeoutMs` its whole group is killed.
   */
  async kill(signal: NodeJS.Signals = this.options.stopSignal ?? 'SIGTERM', timeoutMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child || hasExited(child) || child.pid === undefined) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }, timeoutMs);
    await exited;
    clearTimeout(force);
  }
}
