import type { AddressInfo } from 'node:net';
import { buildApp } from '../../server/app';
import { benchConfig } from './benchConfig';

// One Warden server in a process of its own, for bench/scale.ts: `scaleServer.ts <dataDir> [databaseUrl]`.
// Rows only, no supervision; the store opened from the config, so a PostgreSQL store brings its
// LISTEN/NOTIFY bus. Prints `listening <port>` once it listens; stops on SIGTERM, or when the bench
// that started it goes away (its stdin closes), so that no server outlives a killed bench.

async function main() {
  const [dataDir, databaseUrl] = process.argv.slice(2);
  // No client release builds: they would take the cores the bench measures.
  const config = benchConfig(dataDir, { WARDEN_BUILD_CLIENTS: 'never', ...(databaseUrl && { WARDEN_DATABASE_URL: databaseUrl }) });
  const app = buildApp(config, { supervise: false, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.stdin.on('close', stop).resume();
  console.log(`listening ${(app.server.address() as AddressInfo).port}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
