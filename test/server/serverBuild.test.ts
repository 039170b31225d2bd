import { execFileSync, spawn } from 'node:child_process';
import { buildSync } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServer, serverBundle, serverEntry } from '../../scripts/buildServer';

/** Starts the compiled server with plain node (no TypeScript loader) and resolves the URL it listens on. */
function startCompiled(dataDir: string) {
  const child = spawn(process.execPath, [serverEntry], {
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
  /** Resolves once the output holds `text`; the first admin's banner follows the listening line, after the confinement check. */
  const printed = async (text: string, ms = 20_000) => {
    for (const deadline = Date.now() + ms; !output.includes(text) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    return output;
  };
  return { child, url, exited, output: () => output, printed };
}

describe('compiled server (npm start)', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-server-build-'));
    fs.chmodSync(dataDir, 0o755);
    expect(await buildServer()).toBe(true);
  }, 60_000);

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('builds the server and its packages into one CommonJS file with a linked source map, and a small loader', () => {
    const code = fs.readFileSync(serverBundle, 'utf8');
    expect(code).toContain('//# sourceMappingURL=server.js.map');
    const map = JSON.parse(fs.readFileSync(`${serverBundle}.map`, 'utf8')) as { sources: string[] };
    expect(map.sources).toEqual(expect.arrayContaining(['../../server/main.ts', '../../server/config.ts']));
    // Packages are in the bundle, except the native addon, which loads from node_modules.
    expect(code).not.toMatch(/require\("fastify"\)/);
    expect(code).toMatch(/require\("better-sqlite3"\)/);
    // The loader is small and uses only Node's own modules.
    const loader = fs.readFileSync(serverEntry, 'utf8');
    expect(loader.length).toBeLessThan(10_000);
    expect([...loader.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]).every((name) => name.startsWith('node:'))).toBe(true);
  });

  it('names TypeScript lines in stack traces from a bundle run by plain node', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-trace-'));
    try {
      // A bundle whose line 4 throws, with its linked map, built as the server's is and run by plain node.
      const source = path.join(dir, 'thrower.ts');
      const stackTraces = path.resolve(__dirname, '../../server/stackTraces');
      fs.writeFileSync(
        source,
        `import { mapStackTraces } from ${JSON.stringify(stackTraces)};\nmapStackTraces(__filename);\nfunction fail(): never {\n  throw new Error('on purpose');\n}\ntry {\n  fail();\n} catch (error) {\n  process.stdout.write((error as Error).stack ?? '');\n}\n`,
      );
      const bundle = path.join(dir, 'thrower.js');
      buildSync({ entryPoints: [source], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', sourcemap: 'linked', minifyWhitespace: true });

      const stack = execFileSync(process.execPath, [bundle]).toString();
      expect(stack.split('\n')[0]).toBe('Error: on purpose');
      expect(stack).toContain(`at fail (${source}:4:`);
      expect(stack).not.toContain(`${bundle}:`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts with plain node, creates the first admin, answers /healthz and stops on SIGTERM', async () => {
    const server = startCompiled(dataDir);
    try {
      const url = await server.url;
      const response = await fetch(`${url}/healthz`);
      expect(response.status).toBe(200);
      expect(['starting', 'ok']).toContain((await response.json()).status);
      expect(await server.printed('Warden created the first administrator account')).toContain('Warden created the first administrator account');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  }, 60_000);

  it('leaves V8\'s code cache of the bundle on its way out, and starts again from it', async () => {
    const cache = `${serverBundle}.cache`;
    fs.rmSync(cache, { force: true });
    const first = startCompiled(dataDir);
    expect((await fetch(`${await first.url}/healthz`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(fs.statSync(cache).size).toBeGreaterThan(100_000);

    const again = startCompiled(dataDir);
    try {
      expect((await fetch(`${await again.url}/healthz`)).status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
    }
    expect(await again.exited).toBe(0);
  }, 60_000);
});
