import { spawn } from 'node:child_process';
import path from 'node:path';

/** The project's folder, and the client's entry point in it. */
export const root = path.resolve(__dirname, '../../..');
export const bin = path.join(root, 'cli/bin.js');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WardenRun {
  input?: string;
  env?: Record<string, string>;
  /** The client's configuration folder (its credentials). */
  dir: string;
  /** HOME: the client finds nothing of this machine's user there. */
  home: string;
}

/**
 * Runs the `warden` client as a child process, as a person or a script runs it. The server lives in
 * the test's process, so the child runs asynchronously.
 */
export function runWarden(args: string[], options: WardenRun): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--config-dir', options.dir, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: options.home, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
