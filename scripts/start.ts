import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildSpa } from './build';
import { buildServer, serverEntry } from './buildServer';

/** Runs a command with its output on this console (apt-get's progress); resolves its exit code. */
function runStreamed(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    child.on('error', () => resolve(127));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * `npm start`: set up what a fresh machine lacks (the engines, the SPA and server builds), then run the
 * compiled server (build/server/main.js) with plain node, which serves the SPA and the API, prints the
 * first-admin box and handles SIGINT/SIGTERM itself.
 */
async function main(): Promise<void> {
  // The console is the operator's: request logs would push the first-admin box out of sight.
  // WARDEN_LOG_LEVEL=info brings them back.
  process.env.WARDEN_LOG_LEVEL ??= 'warn';
  // Loaded only once needed, so a failed build never opens the store or a port.
  const [{ loadConfig }, { parseInstallPolicy, prepareEngines }] = await Promise.all([
    import('../server/config'),
    import('../server/engines/detect'),
  ]);
  const config = loadConfig(process.env);
  await prepareEngines(config.engines, {
    policy: parseInstallPolicy(process.env.WARDEN_INSTALL_ENGINES),
    isRoot: process.getuid?.() === 0,
    isDebian: existsSync('/etc/debian_version'),
    hasBubblewrap: existsSync('/usr/bin/bwrap'),
    hasPgBackRest: config.pitr?.enabled === false || existsSync(config.pitr?.bin ?? '/usr/bin/pgbackrest'),
    hasPatroni: existsSync('/usr/bin/patroni'),
    hasHaproxy: existsSync('/usr/sbin/haproxy'),
    run: runStreamed,
    print: (line) => console.log(line),
  });
  if (!(await buildSpa()) || !(await buildServer())) process.exit(1);
  const server = spawn(process.execPath, [serverEntry], { stdio: 'inherit' });
  // A terminal's Ctrl-C reaches both processes; a signal sent to this one alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.kill(signal));
  server.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
