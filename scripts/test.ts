import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * `npm test`: everything CI checks, ordered to finish soonest on a two-core machine.
 *
 * 1. The type check, the lint and the production build the end-to-end suite needs are independent
 *    and each mostly single-threaded, so they run side by side; each one's output is printed whole
 *    when it ends, so the three do not interleave.
 * 2. The jest projects with two workers: most server suites spend their time waiting on PostgreSQL
 *    and etcd processes rather than on the CPU, so the second worker fills that time.
 * 3. Playwright against the built console (one browser, one shared server).
 *
 * The first failing step ends the run with its exit code, as `a && b && c` would.
 */

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

interface Step {
  name: string;
  command: string;
  args: string[];
}

const checks: Step[] = [
  { name: 'typecheck', command: bin('tsc'), args: ['--noEmit', '-p', 'tsconfig.json'] },
  { name: 'lint', command: bin('eslint'), args: ['--max-warnings', '0', '.'] },
  { name: 'build', command: bin('tsx'), args: ['scripts/build.ts', '--if-stale'] },
];
const unit: Step = { name: 'unit', command: bin('jest'), args: ['--maxWorkers=2'] };
const e2e: Step = { name: 'e2e', command: bin('playwright'), args: ['test', '-c', 'test/e2e/playwright.config.ts'] };

/** Runs a step; `quiet` collects its output and prints it in one piece when the step ends. */
function run(step: Step, quiet: boolean): Promise<number> {
  const started = performance.now();
  const child = spawn(step.command, step.args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`${step.name}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      if (quiet) process.stdout.write(Buffer.concat(output));
      const status = code ?? (signal ? 1 : 0);
      console.log(`── ${step.name}: ${status === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s`);
      resolve(status);
    });
  });
}

async function main(): Promise<number> {
  const codes = await Promise.all(checks.map((step) => run(step, true)));
  const failed = codes.find((code) => code !== 0);
  if (failed !== undefined) return failed;
  for (const step of [unit, e2e]) {
    const code = await run(step, false);
    if (code !== 0) return code;
  }
  return 0;
}

main().then((code) => process.exit(code));
