import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildServer, serverEntry } from '../scripts/buildServer';
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
  'node build/server/main.js': [process.execPath, '--enable-source-maps', serverEntry],
  'tsx server/main.ts': [process.execPath, require.resolve('tsx/cli'), 'server/main.ts'],
} as const;
type Variant = keyof typeof variants;

/** Milliseconds from spawn to the first /healthz 200 (to exit, for a process that serves nothing). */
function startOnce(variant: Variant, dataDir: string): Promise<number> {
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
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Warden listening on (\S+)/.exec(output)?.[1];
      if (!url || elapsed !== undefined) return;
      elapsed = Number.NaN;
      fetch(`${url}/healthz`).then(
        (response) => {
          if (response.status === 200) elapsed = performance.now() - started;
          child.kill('SIGTERM');
        },
        () => child.kill('SIGTERM'),
      );
    });
    child.once('exit', (code) => {
      if (variant === "node -e ''") resolve(performance.now() - started);
      else if (elapsed && !Number.isNaN(elapsed)) resolve(elapsed);
      else reject(new Error(`${variant} exited with ${code} before /healthz answered 200: ${output}`));
    });
  });
}


async function main() {
  if (!(await buildServer())) process.exit(1);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-bench-start-'));
  // The engine users reach their data dirs through it, as under /var/lib/warden.
  chmodSync(dataDir, 0o755);
  const times = new Map<Variant, number[]>(Object.keys(variants).map((name) => [name as Variant, []]));
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
  for (const [variant, list] of times) {
    const line = `median ${median(list).toFixed(0).padStart(5)}  min ${Math.min(...list).toFixed(0).padStart(5)}  max ${Math.max(...list).toFixed(0).padStart(5)}`;
    console.log(`  ${variant.padEnd(28)}${line}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
