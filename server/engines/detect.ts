import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface EngineBinaries {
  pgBinDir: string;
  etcdBin: string;
  etcdctlBin: string;
}

export const debianEngineBinaries: EngineBinaries = {
  pgBinDir: '/usr/lib/postgresql/15/bin',
  etcdBin: '/usr/bin/etcd',
  etcdctlBin: '/usr/bin/etcdctl',
};

export interface DetectedEngine {
  type: 'pg' | 'etcd';
  available: boolean;
  /** The version the binary reports, when available. */
  version: string | null;
  /** What is missing and which Debian package brings it, when not available. */
  problem: string | null;
}

async function versionOf(binary: string, args: string[], pattern: RegExp): Promise<string | null> {
  try {
    const { stdout } = await run(binary, args, { timeout: 5000 });
    return pattern.exec(stdout)?.[1] ?? stdout.trim().split('\n')[0];
  } catch {
    return null;
  }
}

/** Asks each engine's binaries for their versions; a missing binary is reported with its package. */
export async function detectEngines(binaries: EngineBinaries): Promise<DetectedEngine[]> {
  const [pg, etcd] = await Promise.all([
    versionOf(`${binaries.pgBinDir}/postgres`, ['--version'], /\(PostgreSQL\)\s+(\S+)/),
    versionOf(binaries.etcdBin, ['--version'], /etcd Version:\s+(\S+)/),
  ]);
  return [
    {
      type: 'pg',
      available: pg !== null,
      version: pg,
      problem: pg === null ? `PostgreSQL is not installed at ${binaries.pgBinDir}: install the Debian package postgresql.` : null,
    },
    {
      type: 'etcd',
      available: etcd !== null,
      version: etcd,
      problem: etcd === null ? `etcd is not installed at ${binaries.etcdBin}: install the Debian package etcd-server.` : null,
    },
  ];
}
