import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseInstallPolicy, prepareEngines, type EngineSetupDeps } from '../../server/engines/detect';

// `npm start` on a fresh machine, against a folder of fake engine binaries: apt-get is never run
// for real, the recorded `run` stands in for it (and "installs" by writing the missing binaries).

let dir: string;
const binaries = () => ({ pgBinDir: path.join(dir, 'pg'), etcdBin: path.join(dir, 'etcd'), etcdctlBin: path.join(dir, 'etcdctl') });

function fakeBinary(file: string, output: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho '${output}'\n`, { mode: 0o755 });
}
const installPg = () => fakeBinary(path.join(dir, 'pg', 'postgres'), 'postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)');
const installEtcd = () => fakeBinary(path.join(dir, 'etcd'), 'etcd Version: 3.4.23\nGit SHA: Not provided');

function deps(overrides: Partial<EngineSetupDeps> = {}) {
  const printed: string[] = [];
  const commands: string[] = [];
  const setup: EngineSetupDeps = {
    policy: 'auto',
    isRoot: true,
    isDebian: true,
    run: async (command, args) => {
      commands.push([command, ...args].join(' '));
      if (args[0] === 'install') {
        if (args.includes('postgresql')) installPg();
        if (args.includes('etcd-server')) installEtcd();
      }
      return 0;
    },
    print: (line) => printed.push(line),
    ...overrides,
  };
  return { setup, printed, commands };
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-engines-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('prepareEngines (npm start)', () => {
  it('says which engines it found and installs nothing when both are there', async () => {
    installPg();
    installEtcd();
    const { setup, printed, commands } = deps();
    const engines = await prepareEngines(binaries(), setup);
    expect(engines.map((e) => [e.type, e.available, e.version])).toEqual([
      ['pg', true, '15.14'],
      ['etcd', true, '3.4.23'],
    ]);
    expect(commands).toEqual([]);
    expect(printed).toEqual([`PostgreSQL 15.14 found at ${dir}/pg.`, `etcd 3.4.23 found at ${dir}/etcd.`]);
  });

  it('as root on Debian, runs apt-get update then installs exactly the missing packages, and finds them after', async () => {
    installPg();
    const { setup, printed, commands } = deps();
    const engines = await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update', 'apt-get install -y etcd-server etcd-client']);
    expect(engines.every((e) => e.available)).toBe(true);
    expect(printed[0]).toBe('Installing etcd: apt-get update && apt-get install -y etcd-server etcd-client');
    expect(printed).toContain('(Set WARDEN_INSTALL_ENGINES=never to skip this.)');
    expect(printed.at(-1)).toBe(`etcd 3.4.23 found at ${dir}/etcd.`);
  });

  it('installs bubblewrap, which confines the engines, when the engines are there but it is not', async () => {
    installPg();
    installEtcd();
    const { setup, printed, commands } = deps({ hasBubblewrap: false });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update', 'apt-get install -y bubblewrap']);
    expect(printed[0]).toBe('Installing bubblewrap: apt-get update && apt-get install -y bubblewrap');
  });

  it('installs pgBackRest, which archives pg instances\' WAL, when it is missing', async () => {
    installPg();
    installEtcd();
    const { setup, printed, commands } = deps({ hasBubblewrap: false, hasPgBackRest: false });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update', 'apt-get install -y bubblewrap pgbackrest']);
    expect(printed[0]).toBe('Installing bubblewrap and pgbackrest: apt-get update && apt-get install -y bubblewrap pgbackrest');
  });

  it('installs Patroni and HAProxy, which run PostgreSQL clusters, when they are missing', async () => {
    installPg();
    installEtcd();
    const { setup, printed, commands } = deps({ hasPatroni: false, hasHaproxy: false });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update', 'apt-get install -y patroni haproxy']);
    expect(printed[0]).toBe('Installing patroni and haproxy: apt-get update && apt-get install -y patroni haproxy');
  });

  it('installs both engines on a bare machine with one apt-get install', async () => {
    const { setup, commands } = deps();
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update', 'apt-get install -y postgresql etcd-server etcd-client']);
  });

  it('with WARDEN_INSTALL_ENGINES=never, installs nothing and prints the exact command', async () => {
    installEtcd();
    const { setup, printed, commands } = deps({ policy: parseInstallPolicy('never') });
    const engines = await prepareEngines(binaries(), setup);
    expect(commands).toEqual([]);
    expect(engines.find((e) => e.type === 'pg')?.available).toBe(false);
    expect(printed).toContain('Install the missing engines with: apt-get update && apt-get install -y postgresql');
  });

  it('not as root, prints the command with sudo', async () => {
    const { setup, printed, commands } = deps({ isRoot: false });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual([]);
    expect(printed).toContain('Install the missing engines with: sudo apt-get update && sudo apt-get install -y postgresql etcd-server etcd-client');
  });

  it('off Debian, prints the command and where to point Warden instead', async () => {
    const { setup, printed, commands } = deps({ isDebian: false });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual([]);
    expect(printed.join('\n')).toMatch(/WARDEN_PG_BINDIR/);
  });

  it('reports a failed apt-get and what is still missing, without running install after a failed update', async () => {
    const { setup, printed, commands } = deps({
      run: async (command, args) => {
        commands.push([command, ...args].join(' '));
        return 100;
      },
    });
    await prepareEngines(binaries(), setup);
    expect(commands).toEqual(['apt-get update']);
    expect(printed).toContain('apt-get failed with exit code 100.');
    expect(printed).toContain('Install the missing engines with: apt-get update && apt-get install -y postgresql etcd-server etcd-client');
  });

  it('accepts auto and never only', () => {
    expect(parseInstallPolicy(undefined)).toBe('auto');
    expect(parseInstallPolicy('auto')).toBe('auto');
    expect(parseInstallPolicy('never')).toBe('never');
    expect(() => parseInstallPolicy('always')).toThrow('WARDEN_INSTALL_ENGINES must be auto or never');
  });
});
