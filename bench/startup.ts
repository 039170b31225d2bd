import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildServer, serverEntry } from '../scripts/buildServer';
import type { StartupStatus } from '../server/startup';
import { startPhases } from '../server/startup';
import { median } from './lib/figures';

/**
 * Server cold start on an existing store (migrated, first admin created): from spawning the process
 * to the first /healthz 200, for the compiled server `npm start` runs (build/server/main.js) and for
 * the TypeScript entry under tsx (transpiled at start), beside `node -e ''` — the floor of any node
 * process on this machine — measured in the same run, in turns, so load from elsewhere hits all alike.
 */
const root = path.resolve(__dirname, '..');
const runs = process.argv.includes('--quick') ? 3 : 5;

const variants = {
  "node -e ''": [process.execPath, '-e', ''],
  'node build/server/main.js': [process.execPath, serverEntry],
  'tsx server/main.ts': [process.execPath, require.resolve('tsx/cli'), 'server/main.ts'],
} as const;
type Variant = keyof typeof variants;

interface Start {
  /** Milliseconds from spawn to the first /healthz 200 (to exit, for a process that serves nothing). */
  ms: number;
  /** The phases the server reports, in ms since its process began, once its background work is done. */
  phases?: StartupStatus['phases'];
}

/** Polls /healthz until the start's background work is done and returns what it reports. */
async function finished(url: string): Promise<StartupStatus> {
  for (;;) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as StartupStatus;
    if (health.status !== 'starting') return health;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function startOnce(variant: Variant, dataDir: string): Promise<Start> {
  const [command, ...args] = variants[variant];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, WARDEN_PORT: '0', WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'warn', WARDEN_BUILD_CLIENTS: 'never' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let elapsed: number | undefined;
    let phases: StartupStatus['phases'] | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Warden listening on (\S+)/.exec(output)?.[1];
      if (!url || elapsed !== undefined) return;
      elapsed = Number.NaN;
      fetch(`${url}/healthz`)
        .then(async (response) => {
          if (response.status === 200) elapsed = performance.now() - started;
          phases = (await finished(url)).phases;
        })
        .catch(() => undefined)
        .finally(() => child.kill('SIGTERM'));
    });
    child.once('exit', (code) => {
      if (variant === "node -e ''") resolve({ ms: performance.now() - started });
      else if (elapsed && !Number.isNaN(elapsed)) resolve({ ms: elapsed, phases });
      else reject(new Error(`${variant} exited with ${code} before /healthz answered 200: ${output}`));
    });
  });
}


async function main() {
  if (!(await buildServer())) process.exit(1);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-bench-start-'));
  // The engine users reach their data dirs through it, as under /var/lib/warden.
  chmodSync(dataDir, 0o755);
  const times = new Map<Variant, Start[]>(Object.keys(variants).map((name) => [name as Variant, []]));
  try {
    // The first start migrates the store and creates the admin; the measured ones find both done.
    await startOnce('node build/server/main.js', dataDir);
    for (let i = 0; i < runs; i++) {
      for (const [variant, list] of times) list.push(await startOnce(variant, dataDir));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`cold start, existing store, spawn → /healthz 200, ${runs} runs (ms)`);
  const ms = (list: number[]) => `median ${median(list).toFixed(0).padStart(5)}  min ${Math.min(...list).toFixed(0).padStart(5)}  max ${Math.max(...list).toFixed(0).padStart(5)}`;
  for (const [variant, list] of times) console.log(`  ${variant.padEnd(28)}${ms(list.map((start) => start.ms))}`);
  const floor = median(times.get("node -e ''")!.map((start) => start.ms));
  const compiled = times.get('node build/server/main.js')!;
  console.log(`  compiled ÷ node -e '': ${(median(compiled.map((start) => start.ms)) / floor).toFixed(1)}×  (target ≤ 8×)`);
  console.log('phases of the compiled server, ms since its process began (as /healthz reports them)');
  for (const phase of startPhases) {
    const reached = compiled.map((start) => start.phases?.[phase]).filter((value): value is number => value !== undefined);
    console.log(`  ${phase.padEnd(28)}${reached.length > 0 ? ms(reached) : 'not reported'}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
