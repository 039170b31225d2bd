import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Server cold start: from spawning `tsx server/main.ts` to "Warden listening", on an empty store
 * (migrations and the first admin's password hash included) and on an existing one.
 */
const root = path.resolve(__dirname, '..');
const runs = process.argv.includes('--quick') ? 3 : 7;

function startOnce(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'server/main.ts'], {
      cwd: root,
      env: { ...process.env, WARDEN_PORT: '0', WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Warden listening on')) {
        const elapsed = performance.now() - started;
        child.once('exit', () => resolve(elapsed));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!output.includes('Warden listening on')) reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const empty: number[] = [];
  const existing: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-bench-start-'));
    try {
      empty.push(await startOnce(dataDir));
      existing.push(await startOnce(dataDir));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(`server cold start over ${runs} runs (ms, spawn → listening)`);
  console.log(`  empty store:    median ${median(empty).toFixed(0)}  min ${Math.min(...empty).toFixed(0)}  max ${Math.max(...empty).toFixed(0)}`);
  console.log(`  existing store: median ${median(existing).toFixed(0)}  min ${Math.min(...existing).toFixed(0)}  max ${Math.max(...existing).toFixed(0)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
