import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopInstances } from './stopInstances';

const root = path.resolve(__dirname, '../..');

export interface WardenProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Asks the kernel for a free loopback port, so the public URL (and allowed Origin) is known before start. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Ended by itself or by a signal (a killed child has no exit code, and will never emit 'exit' again). */
const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Starts the real server (`server/main.ts`) as a child process and waits until it listens. */
export async function startWarden(env: Record<string, string>, port: number): Promise<WardenProcess> {
  const url = `http://127.0.0.1:${port}`;
  // node itself with tsx's loader (not the tsx wrapper, which forks): killing this child kills the server.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    // No client release builds unless a test asks for one: they would take the CPU the tests need.
    env: { ...process.env, WARDEN_HOST: '127.0.0.1', WARDEN_PORT: String(port), WARDEN_PUBLIC_URL: url, WARDEN_BUILD_CLIENTS: 'never', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Warden listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (hasExited(child)) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A server of a describe block's own, over a data dir of its own, that a test may kill as a crash
 * would and start again on the same port (so the open console's URL stays right).
 */
export class CrashableWarden {
  private constructor(
    /** Its own store and instances' folders. */
    readonly dataDir: string,
    private readonly port: number,
    private readonly env: Record<string, string>,
    private process: WardenProcess,
  ) {}

  /** `env` adds settings, e.g. a port range of its own for instances beside the shared server's. */
  static async start(name: string, admin: { email: string; password: string }, env: Record<string, string> = {}): Promise<CrashableWarden> {
    const dataDir = mkdtempSync(path.join(tmpdir(), `warden-e2e-${name}-`));
    // Instances' own users must pass through it to reach their folders.
    chmodSync(dataDir, 0o711);
    const port = await freePort();
    const settings = { ...env, WARDEN_DATA_DIR: dataDir, WARDEN_ADMIN_EMAIL: admin.email, WARDEN_ADMIN_PASSWORD: admin.password };
    return new CrashableWarden(dataDir, port, env, await startWarden(settings, port));
  }

  get url() {
    return this.process.url;
  }

  /** SIGKILL, waited for. */
  async kill() {
    const { child } = this.process;
    if (hasExited(child)) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Starts again over the same data dir, port and settings; `env` changes some (another web console, say). */
  async startAgain(env: Record<string, string> = {}) {
    this.process = await startWarden({ ...this.env, ...env, WARDEN_DATA_DIR: this.dataDir }, this.port);
  }

  /** Stops it and the instances it made, and removes its data dir. */
  async stop() {
    await this.process.stop();
    await stopInstances(this.dataDir);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
