import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServer, serverEntry } from '../../scripts/buildServer';

/** Starts the compiled server with plain node (no TypeScript loader) and resolves the URL it listens on. */
function startCompiled(dataDir: string) {
  const child = spawn(process.execPath, ['--enable-source-maps', serverEntry], {
    env: { ...process.env, WARDEN_PORT: '0', WARDEN_DATA_DIR: dataDir, WARDEN_BUILD_CLIENTS: 'never', WARDEN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /Warden listening on (\S+)/.exec(output);
      if (listening) resolve(listening[1]);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`the compiled server exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, url, exited, output: () => output };
}

describe('compiled server (npm start)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-server-build-'));
    fs.chmodSync(dataDir, 0o755);
    expect(await buildServer()).toBe(true);
  }, 60_000);

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('builds one CommonJS file with a linked source map that names the TypeScript sources', () => {
    const code = fs.readFileSync(serverEntry, 'utf8');
    expect(code).toContain('//# sourceMappingURL=main.js.map');
    const map = JSON.parse(fs.readFileSync(`${serverEntry}.map`, 'utf8')) as { sources: string[] };
    expect(map.sources).toEqual(expect.arrayContaining(['../../server/main.ts', '../../server/config.ts']));
    // Packages stay in node_modules: loaded by require, not copied into the bundle.
    expect(code).toMatch(/require\("fastify"\)/);
  });

  it('starts with plain node, creates the first admin, answers /healthz and stops on SIGTERM', async () => {
    const server = startCompiled(dataDir);
    try {
      const url = await server.url;
      const response = await fetch(`${url}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      expect(server.output()).toContain('Warden created the first administrator account');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  }, 60_000);
});
