import fs from 'node:fs';
import type { InstanceRuntime } from './engine';
import { writeInstanceFile } from './instanceFiles';
import { EngineError, isAlive, isProcessOf, readPidFile, spawnDetached } from './processRunner';
import { endLeftovers, instanceUser, migrateInstanceFolder } from './instanceUsers';

// The postmaster as a process: started, found, signalled and stopped by Warden itself. pg_ctl would
// daemonize it out of its confinement (confinement.ts), and inside it the pid in postmaster.pid is
// the one of its own PID namespace, useless on the host: Warden records the host pid beside it.

/** The files of an instance the postmaster's handling reads and writes. */
export interface PostmasterFiles {
  data: string;
  /** The postmaster's pid on the host, as Warden recorded it. */
  pidFile: string;
  startupLog: string;
}

export interface PostmasterOptions {
  postgres: string;
  files: (rt: InstanceRuntime) => PostmasterFiles;
  /** Run after every start (the roles DESIGN §11 wants). */
  afterStart: (rt: InstanceRuntime) => Promise<void>;
  /** Run before every start, while the server is down (its managed configuration rewritten, its archive's stanza made). */
  beforeStart?: (rt: InstanceRuntime) => void | Promise<void>;
  /** Folders outside the instance's the postmaster may write (its WAL archive's repository). */
  binds?: (rt: InstanceRuntime) => string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const readyWithinMs = 60_000;
const stoppedWithinMs = 60_000;

/**
 * postmaster.pid's status (line 8) and when it was last written, once a server has written it. Its
 * start time (line 3) counts whole seconds, so a server killed in the second a new one is spawned
 * would pass for the new one; the file's own time tells them apart.
 */
function postmasterStatus(data: string) {
  try {
    const file = `${data}/postmaster.pid`;
    const writtenAt = fs.statSync(file).mtimeMs;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    return { writtenAt, status: (lines[7] ?? '').trim() };
  } catch {
    return null;
  }
}

/** What a log file gained past `from`: the last few lines, for an error message. */
function newLines(file: string, from: number): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(from).trim().split('\n').slice(-4).join('\n');
  } catch {
    return '';
  }
}

export function pgPostmaster({ postgres, files, afterStart, beforeStart, binds }: PostmasterOptions) {
  /**
   * The postmaster's host pid: the one Warden recorded when it started it, or for a server started
   * before engines were confined (by pg_ctl, in the host's PID namespace), the one in postmaster.pid.
   */
  const pid = (rt: InstanceRuntime): number | null => {
    const f = files(rt);
    const recorded = fs.existsSync(f.pidFile) ? readPidFile(f.pidFile) : readPidFile(`${f.data}/postmaster.pid`);
    return recorded !== null && isProcessOf(recorded, postgres) ? recorded : null;
  };

  /**
   * Starts the postmaster and waits, as pg_ctl -w does, until postmaster.pid says it accepts
   * connections. Throws with the startup log's last lines when it exits first.
   */
  async function spawnPostmaster(rt: InstanceRuntime, logged: number) {
    const f = files(rt);
    const spawnedAt = Date.now();
    // The instance's user owns its log, as when pg_ctl wrote it.
    if (!fs.existsSync(f.startupLog)) writeInstanceFile(f.startupLog, '', { within: rt.dir, owner: instanceUser(rt) });
    const hostPid = await spawnDetached(instanceUser(rt), postgres, ['-D', f.data], f.startupLog, { binds: binds?.(rt) ?? [] });
    writeInstanceFile(f.pidFile, `${hostPid}\n`, { within: rt.dir });
    // Read every 25 ms: a start is waited on by whoever asked for it (a restore, a restart), and the
    // file costs next to nothing to read. A dead server's file (written before the spawn) is not the answer.
    for (let waited = 0; waited < readyWithinMs; waited += 25) {
      const status = postmasterStatus(f.data);
      if (status && status.writtenAt >= spawnedAt && status.status === 'ready') return;
      if (!isAlive(hostPid)) {
        const why = newLines(f.startupLog, logged);
        throw new EngineError(`postgres did not start.${why ? `\n${why}` : ''}`);
      }
      await sleep(25);
    }
    throw new EngineError('postgres did not become ready within 60 seconds: see the startup log.');
  }

  async function startOnce(rt: InstanceRuntime) {
    if (pid(rt) !== null) return;
    // An instance still run by the shared postgres user moves to its own user while stopped.
    migrateInstanceFolder(rt);
    await endLeftovers(rt);
    await beforeStart?.(rt);
    const { startupLog } = files(rt);
    for (let attempt = 1; ; attempt++) {
      const logged = fs.existsSync(startupLog) ? fs.statSync(startupLog).size : 0;
      try {
        await spawnPostmaster(rt, logged);
        break;
      } catch (error) {
        // After a crash (kill -9) the old server's children may hold shared memory for a moment.
        if (attempt < 20 && /shared memory block is still in use|lock file .* already exists/.test((error as Error).message)) {
          await sleep(500);
          continue;
        }
        throw error;
      }
    }
    await afterStart(rt);
  }

  /** Starts under way, by instance id. */
  const starting = new Map<string, Promise<void>>();

  return {
    pid,

    /**
     * Starts a stopped postmaster. A second start while one is under way (supervision restarting a
     * crashed instance as someone starts it) joins it: on its own it would end the first one's new
     * postmaster as a leftover of the instance's user.
     */
    start(rt: InstanceRuntime): Promise<void> {
      const under = starting.get(rt.id);
      if (under) return under;
      const started = startOnce(rt).finally(() => starting.delete(rt.id));
      starting.set(rt.id, started);
      return started;
    },

    /** Fast shutdown (SIGINT, as pg_ctl -m fast): sessions end, the server checkpoints and exits. */
    async stop(rt: InstanceRuntime): Promise<void> {
      const current = pid(rt);
      if (current === null) return;
      process.kill(current, 'SIGINT');
      for (let waited = 0; waited < stoppedWithinMs && isAlive(current); waited += 100) await sleep(100);
      if (isAlive(current)) throw new EngineError('postgres did not shut down within 60 seconds.');
      fs.rmSync(files(rt).pidFile, { force: true });
    },

    /** SIGHUP: the postmaster reads its configuration files again, a moment later. */
    reload(rt: InstanceRuntime): void {
      const current = pid(rt);
      if (current === null) throw new EngineError('postgres is not running: start it to reload its configuration.');
      process.kill(current, 'SIGHUP');
    },
  };
}
