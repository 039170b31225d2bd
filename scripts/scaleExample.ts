import path from 'node:path';
import { buildSpa } from './build';
import { startScaleExample } from './lib/scale/example';

/**
 * `npm run example:scale [-- --base-port 8080]`: two API servers behind HAProxy, a PostgreSQL store
 * and two agents on this machine, in ./data-scale (deploy/scale/README.md). Prints where each piece
 * is and the admin's credentials; Ctrl-C or SIGTERM stops the instances, then everything else.
 */

// Until the example is up, a signal ends this process at once; the pieces' groups go with it.
let onSignal: () => void = () => process.exit(130);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => onSignal());

async function main(): Promise<void> {
  const portArgument = process.argv.indexOf('--base-port');
  const basePort = portArgument === -1 ? undefined : Number(process.argv[portArgument + 1]);
  if (basePort !== undefined && !(Number.isInteger(basePort) && basePort >= 1024 && basePort <= 65_000)) {
    throw new Error(`--base-port must be a port from 1024 to 65000, got '${process.argv[portArgument + 1]}'`);
  }
  // The servers serve the console from dist/.
  if (!(await buildSpa())) process.exit(1);
  const dir = path.resolve('data-scale');
  console.log(`Starting the scale example in ${dir} (logs in ${path.join(dir, 'logs')}) …`);
  const example = await startScaleExample({ dir, basePort, log: (line) => console.log(`  ${line}`) });
  console.log(
    [
      '',
      `Console: ${example.url}`,
      `  e-mail:   ${example.admin.email}`,
      `  password: ${example.admin.password}`,
      `Store (as the servers): ${example.store.url}`,
      '',
      'Ctrl-C stops the instances, then HAProxy, the servers, the agents and the store.',
    ].join('\n'),
  );
  onSignal = () => {
    const first = Date.now();
    // A second Ctrl-C does not wait for the instances. npm and tsx pass the terminal's Ctrl-C on to
    // this process as well: the copies that come with the first one are not a second.
    onSignal = () => Date.now() - first > 1_000 && process.exit(130);
    console.log('\nStopping the instances, then HAProxy, the servers, the agents and the store …');
    example.stop().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
