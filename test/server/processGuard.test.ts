import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// guardProcess in a real child process: an uncaught exception and an unhandled rejection are
// logged through pino and the process goes on running, where Node's default would kill it.

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '../..');

function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-guard-'));
  const file = path.join(dir, 'child.ts');
  fs.writeFileSync(file, script);
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    }),
  );
}

const failures = `
setTimeout(() => { throw new Error('thrown from a timer'); }, 10);
setTimeout(() => { void Promise.reject(new Error('rejected in a request')); }, 20);
setTimeout(() => { console.log('still serving'); process.exit(0); }, 300);
`;

it('logs an uncaught exception and an unhandled rejection and keeps the process running', async () => {
  const { code, stdout } = await run(`
const { guardProcess } = require(${JSON.stringify(path.join(root, 'server/main.ts'))});
const pino = require(${JSON.stringify(require.resolve('pino', { paths: [root] }))});
guardProcess(pino());
${failures}`);
  expect(code).toBe(0);
  const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  expect(lines).toEqual([
    expect.objectContaining({ level: 50, msg: 'Uncaught exception; Warden keeps serving', err: expect.objectContaining({ message: 'thrown from a timer' }) }),
    expect.objectContaining({ level: 50, msg: 'Unhandled promise rejection; Warden keeps serving', err: expect.objectContaining({ message: 'rejected in a request' }) }),
  ]);
  expect(stdout).toContain('still serving');
});

it('is what keeps it alive: without the guard the same failures end the process', async () => {
  const { code, stdout, stderr } = await run(failures);
  expect(code).not.toBe(0);
  expect(stdout).not.toContain('still serving');
  expect(stderr).toContain('thrown from a timer');
});
