import { spawn } from 'node:child_process';
import path from 'node:path';
import webpack from 'webpack';
import WebpackDevServer from 'webpack-dev-server';
import webpackConfig from '../webpack.config';
import { loadConfig } from '../server/config';

const root = path.resolve(__dirname, '..');

/**
 * `npm run dev`: the Warden server under `tsx watch` (restarts on server changes) and
 * webpack-dev-server on http://127.0.0.1:3000 (hot reload), which proxies API calls and the hub
 * to it. Ctrl-C stops both.
 */
async function main(): Promise<void> {
  const server = loadConfig(process.env);
  const devServerOrigins = ['http://127.0.0.1:3000', 'http://localhost:3000'];
  // The browser's Origin is the dev server's; the server must accept it for mutations and the hub.
  const allowedOrigins = [...new Set([...server.allowedOrigins, ...devServerOrigins])].join(',');

  // Its own process group, so Ctrl-C reaches it once, from stop() below, and not also from the terminal.
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'watch', 'server/main.ts'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, WARDEN_ALLOWED_ORIGINS: allowedOrigins },
  });
  const childExited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));

  const config = webpackConfig({ serverUrl: `http://${server.host}:${server.port}` });
  // Exit signals are handled below, so that the server child is stopped too.
  const devServer = new WebpackDevServer({ ...config.devServer, setupExitSignals: false }, webpack(config));

  let stopping = false;
  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all([devServer.stop(), childExited]);
    process.exit(exitCode);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  void childExited.then((code) => stop(code));

  await devServer.start();
  console.log(`Warden dev: http://127.0.0.1:3000 (API and hub proxied to http://${server.host}:${server.port})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
