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

/** The Debian packages that bring each engine's binaries (etcdctl comes with etcd-client). */
export const enginePackages: Record<DetectedEngine['type'], string[]> = {
  pg: ['postgresql'],
  etcd: ['etcd-server', 'etcd-client'],
};

const engineNames: Record<DetectedEngine['type'], string> = { pg: 'PostgreSQL', etcd: 'etcd' };

/** WARDEN_INSTALL_ENGINES: 'auto' (the default) installs missing engines when it can; 'never' only says how. */
export type InstallPolicy = 'auto' | 'never';

export function parseInstallPolicy(raw: string | undefined): InstallPolicy {
  if (raw === undefined || raw === '' || raw === 'auto') return 'auto';
  if (raw === 'never') return 'never';
  throw new Error(`WARDEN_INSTALL_ENGINES must be auto or never, got '${raw}'`);
}

export interface EngineSetupDeps {
  policy: InstallPolicy;
  /** Running as root: apt-get may install. */
  isRoot: boolean;
  /** /etc/debian_version exists: the packages above exist. */
  isDebian: boolean;
  /** bubblewrap, which confines the engines (confinement.ts), is installed; installed with them when not. */
  hasBubblewrap?: boolean;
  /** pgBackRest, which archives pg instances' WAL (pgArchive.ts), is installed; installed with them when not. */
  hasPgBackRest?: boolean;
  /** Patroni and HAProxy, which run PostgreSQL clusters (pgCluster.ts), are installed; installed with them when not. */
  hasPatroni?: boolean;
  hasHaproxy?: boolean;
  /** Runs a command with its output streamed to the console; resolves its exit code. */
  run(command: string, args: string[]): Promise<number>;
  print(line: string): void;
}

function describe(engine: DetectedEngine, binaries: EngineBinaries): string {
  const where = engine.type === 'pg' ? binaries.pgBinDir : binaries.etcdBin;
  return engine.available ? `${engineNames[engine.type]} ${engine.version} found at ${where}.` : `${engine.problem}`;
}

/**
 * `npm start` on a fresh machine: reports which engines are installed and, when some are missing,
 * installs them with apt-get (as root on Debian, unless the policy says never), or prints the exact
 * command that would. Answers the engines as found in the end; a missing engine only disables its
 * instance type, so this never stops the start.
 */
export async function prepareEngines(binaries: EngineBinaries, deps: EngineSetupDeps): Promise<DetectedEngine[]> {
  let engines = await detectEngines(binaries);
  const missing = () => engines.filter((engine) => !engine.available);
  const tools = [
    ...(deps.hasBubblewrap === false ? ['bubblewrap'] : []),
    ...(deps.hasPgBackRest === false ? ['pgbackrest'] : []),
    ...(deps.hasPatroni === false ? ['patroni'] : []),
    ...(deps.hasHaproxy === false ? ['haproxy'] : []),
  ];
  const packages = () => missing().flatMap((engine) => enginePackages[engine.type]);
  if ((missing().length > 0 || tools.length > 0) && deps.policy === 'auto' && deps.isRoot && deps.isDebian) {
    const install = ['install', '-y', ...packages(), ...tools];
    const names = [...missing().map((e) => engineNames[e.type]), ...tools];
    deps.print(`Installing ${names.join(' and ')}: apt-get update && apt-get ${install.join(' ')}`);
    deps.print('(Set WARDEN_INSTALL_ENGINES=never to skip this.)');
    const updated = await deps.run('apt-get', ['update']);
    const installed = updated === 0 ? await deps.run('apt-get', install) : updated;
    if (installed !== 0) deps.print(`apt-get failed with exit code ${installed}.`);
    engines = await detectEngines(binaries);
  }
  for (const engine of engines) deps.print(describe(engine, binaries));
  if (missing().length > 0) {
    const sudo = deps.isRoot ? '' : 'sudo ';
    deps.print(`Install the missing engines with: ${sudo}apt-get update && ${sudo}apt-get install -y ${packages().join(' ')}`);
    if (!deps.isDebian) deps.print('(Package names are Debian\'s; elsewhere, point WARDEN_PG_BINDIR / WARDEN_ETCD_BIN / WARDEN_ETCDCTL_BIN at the binaries.)');
    deps.print('Warden starts anyway; instances of a missing engine cannot run until it is installed.');
  }
  return engines;
}
