import { buildSpa } from './build';

/** `npm start`: build the SPA when dist/ is stale, then serve it and the API from this process. */
async function main(): Promise<void> {
  if (!(await buildSpa())) process.exit(1);
  // Loaded only once the build is done, so a failed build never opens the store or a port.
  const [{ loadConfig }, { startServer, guardProcess }] = await Promise.all([import('../server/config'), import('../server/main')]);
  const server = await startServer(loadConfig(process.env));
  guardProcess(server.app.log);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
