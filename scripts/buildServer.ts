import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { isOutputStale } from './build';

const root = path.resolve(__dirname, '..');
const outdir = path.join(root, 'build', 'server');

/** The compiled server `npm start` runs with plain node (`node build/server/main.js`): a loader for server.js. */
export const serverEntry = path.join(outdir, 'main.js');
/** The server and its packages in one file, with its source map beside it. */
export const serverBundle = path.join(outdir, 'server.js');
/** V8's code cache of the bundle, written by the loader (server/bootstrap.ts) after a start. */
const codeCache = `${serverBundle}.cache`;

/** What build/server/ is built from. */
const buildInputs = ['server', 'contracts', 'scripts/buildServer.ts', 'package.json', 'tsconfig.json'];

/**
 * Server modules find the project (package.json, dist/, releases) from their own folder; in the bundle
 * every module shares build/server/ as `__dirname`, so each one's `__dirname` is pointed back at its
 * source folder, relative to the bundle so that a moved checkout keeps working.
 */
const sourceDirname: Plugin = {
  name: 'source-dirname',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const { readFile } = await import('node:fs/promises');
      const source = await readFile(file, 'utf8');
      if (file.includes(`${path.sep}node_modules${path.sep}`) || !/\b__dirname\b/.test(source)) return undefined;
      const relative = JSON.stringify(path.relative(outdir, path.dirname(file)).split(path.sep).join('/'));
      return { contents: source.replace(/\b__dirname\b/g, `require("node:path").join(__dirname, ${relative})`), loader: 'ts' };
    });
  },
};

/**
 * Packages that stay in node_modules: better-sqlite3 loads its native addon from beside its own files,
 * and pg-native is an optional addon pg tries to load only when asked for.
 */
export const serverExternals = ['better-sqlite3', 'pg-native'];

/**
 * Compiles the server into build/server/server.js (CommonJS, node20) with the packages it uses, so a
 * start loads one file instead of transpiling TypeScript and resolving some 640 modules one by one,
 * and its loader main.js (server/bootstrap.ts), which compiles it with V8's code cache. Whitespace and
 * syntax are minified (a third less to parse); names are kept. The linked source map makes stack traces
 * name the TypeScript lines (server/stackTraces.ts).
 * Skipped when up to date unless `force`; resolves false when esbuild reported errors (already printed).
 */
export async function buildServer({ force = false }: { force?: boolean } = {}): Promise<boolean> {
  if (!force && !isOutputStale(serverEntry, buildInputs)) return true;
  const { build } = await import('esbuild');
  const started = performance.now();
  try {
    await build({
      entryPoints: { main: path.join(root, 'server', 'bootstrap.ts'), server: path.join(root, 'server', 'main.ts') },
      outdir,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: serverExternals,
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: 'linked',
      tsconfig: path.join(root, 'tsconfig.json'),
      plugins: [sourceDirname],
      logLevel: 'warning',
    });
  } catch {
    console.error('Server build failed.');
    return false;
  }
  // V8 checks a cache against its source's length only: one made for the last build must go.
  fs.rmSync(codeCache, { force: true });
  console.log(`Server built in ${((performance.now() - started) / 1000).toFixed(1)} s → build/server/`);
  return true;
}

if (require.main === module) {
  buildServer({ force: !process.argv.includes('--if-stale') }).then(
    (ok) => process.exit(ok ? 0 : 1),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
