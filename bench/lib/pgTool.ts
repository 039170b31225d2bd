import { spawn } from 'node:child_process';
import path from 'node:path';
import type { EngineUser } from '../../server/engines/instanceUsers';

const pgBinDir = '/usr/lib/postgresql/15/bin';

/** Where a PostgreSQL client tool connects: the instance's socket, as its own system user. */
export interface PgToolTarget {
  /** The instance's system user (null when the bench does not run as root). */
  user: EngineUser | null;
  socket: string;
  port: number;
  password: string;
}

/**
 * Runs a PostgreSQL client tool as the instance's user (as Warden runs pg_dump) against the instance's
 * socket, with the password in the environment; answers its stdout and how long it ran.
 */
export function pgTool(target: PgToolTarget, tool: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const { user } = target;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(pgBinDir, tool), ['-h', target.socket, '-p', String(target.port), '-U', 'postgres', ...args], {
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', PGPASSWORD: target.password },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ ms: performance.now() - started, stdout: stdout.trim() });
      else reject(new Error(`${tool} ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
    });
  });
}
