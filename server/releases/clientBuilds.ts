import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ClientBuildStatus } from '../../contracts/clientVersions';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { EventBus } from '../hub/bus';
import { readManifest, releasesDir } from './releaseCatalog';
import { releaseVersion } from './version';

/** The checkout the server runs from: scripts/release.ts and the client's sources. */
const root = path.resolve(__dirname, '..', '..');
/** How much of the build's error output a failure keeps. */
const errorTailChars = 2000;

/**
 * Makes the current version's client releases available: at first start, when the releases folder
 * lacks them, builds them in a child process (`scripts/release.ts`, at low priority, so the build's
 * CPU and memory never stall requests) and tells every signed-in user how far it is (ClientBuildProgress).
 */
export class ClientBuilds {
  private state: ClientBuildStatus;
  private child: ChildProcess | null = null;

  constructor(private readonly deps: { config: Config; bus: EventBus; clock: Clock; log: FastifyBaseLogger }) {
    const enabled = deps.config.buildClients === 'auto';
    this.state = {
      state: enabled ? 'idle' : 'disabled',
      version: '',
      step: enabled ? 'Waiting for the server to start' : 'Building client releases is turned off (WARDEN_BUILD_CLIENTS=never)',
      percent: 0,
      startedAt: null,
      finishedAt: null,
      error: null,
    };
  }

  status(): ClientBuildStatus {
    return { ...this.state };
  }

  /** Builds the current version unless its releases are there (or building is off); resolves when it is settled. */
  async ensureCurrent(): Promise<ClientBuildStatus> {
    if (this.state.state === 'disabled' || this.state.state === 'building') return this.status();
    const version = await releaseVersion(root);
    const dir = releasesDir(this.deps.config.dataDir);
    const { releases } = await readManifest(dir).catch(() => ({ releases: [] }));
    const present = (platform: string) =>
      releases.some((r) => r.version === version && r.platform === platform && fs.existsSync(path.join(dir, path.basename(r.fileName))));
    if (present('windows') && present('containers')) {
      this.change({ state: 'succeeded', version, step: 'Up to date', percent: 100 });
      return this.status();
    }
    return this.build(version, dir);
  }

  /** Stops a build under way (the server is stopping); the next start builds again. */
  close(): void {
    this.child?.kill('SIGTERM');
  }

  private async build(version: string, dir: string): Promise<ClientBuildStatus> {
    // What a build the server stopped left behind.
    for (const leftover of await fs.promises.readdir(dir).catch(() => [] as string[])) {
      if (leftover.startsWith('.build-')) await fs.promises.rm(path.join(dir, leftover), { recursive: true, force: true });
    }
    this.change({ state: 'building', version, step: 'Starting the build', percent: 0, startedAt: this.deps.clock().toISOString(), finishedAt: null, error: null });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'scripts', 'release.ts'), '--data-dir', this.deps.config.dataDir, '--progress', 'json'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
    );
    this.child = child;
    try {
      if (child.pid) os.setPriority(child.pid, 10);
    } catch {
      // Not allowed to lower it: the build runs at normal priority.
    }
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-errorTailChars)));
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) this.onLine(line);
    });
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', (error) => {
        errors += error.message;
        resolve(null);
      });
      child.once('close', resolve);
    });
    this.child = null;
    const finishedAt = this.deps.clock().toISOString();
    if (code === 0) {
      this.change({ state: 'succeeded', step: 'Done', percent: 100, finishedAt });
    } else {
      const error = /The release build failed: (.*)/s.exec(errors)?.[1]?.trim() ?? (errors.trim() || `The build stopped (exit ${code}).`);
      this.deps.log.error({ version, code, error }, 'Building the client releases failed');
      this.change({ state: 'failed', step: 'Failed', finishedAt, error });
    }
    return this.status();
  }

  private onLine(line: string): void {
    let message: { step?: unknown; percent?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      return; // a tool's own output, not progress
    }
    if (typeof message.step === 'string' && typeof message.percent === 'number') {
      this.change({ step: message.step, percent: Math.min(100, Math.max(0, message.percent)) });
    }
  }

  private change(patch: Partial<ClientBuildStatus>): void {
    this.state = { ...this.state, ...patch };
    this.deps.bus.publish({ event: 'ClientBuildProgress', payload: this.status(), audience: { kind: 'all' } });
  }
}
