import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Stats } from 'webpack';

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');

/** What the SPA in dist/ is built from. */
const buildInputs = ['src', 'public', 'contracts', 'scripts/webpack', 'webpack.config.ts', 'babel.config.js', 'package.json'];

/** Newest modification time in a file or folder tree; a folder's own time counts (deletions). */
function newestChange(file: string): number {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((name) => newestChange(path.join(file, name))));
}

/** `output` is missing or older than one of `inputs` (paths relative to the project root). */
export function isOutputStale(output: string, inputs: string[]): boolean {
  const built = statSync(output, { throwIfNoEntry: false });
  return !built || inputs.some((input) => newestChange(path.join(root, input)) > built.mtimeMs);
}

/** dist/index.html is missing or older than something it is built from. */
export function isBuildStale(): boolean {
  return isOutputStale(path.join(dist, 'index.html'), buildInputs);
}

/**
 * Builds the SPA into dist/ with webpack (production) when it is stale, or always with `force`.
 * Resolves false when webpack reported errors (already printed).
 */
export async function buildSpa({ force = false }: { force?: boolean } = {}): Promise<boolean> {
  if (!force && !isBuildStale()) {
    console.log('SPA in dist/ is up to date.');
    return true;
  }
  console.log('Building the SPA (webpack, production) …');
  const started = performance.now();
  // Loaded only to build: `npm start` checks staleness here and must not pay for webpack.
  const [{ default: webpack }, { default: webpackConfig }] = await Promise.all([import('webpack'), import('../webpack.config')]);
  const compiler = webpack(webpackConfig({ production: true }));
  const stats = await new Promise<Stats>((resolve, reject) => {
    compiler.run((error, result) => (error || !result ? reject(error) : resolve(result)));
  });
  await new Promise<void>((resolve) => compiler.close(() => resolve()));

  if (stats.hasErrors() || stats.hasWarnings()) {
    console.log(stats.toString({ preset: 'errors-warnings', colors: process.stdout.isTTY }));
  }
  if (stats.hasErrors()) {
    console.error('SPA build failed.');
    return false;
  }
  await printSummary(stats, performance.now() - started);
  return true;
}

async function printSummary(stats: Stats, elapsedMs: number): Promise<void> {
  const [{ loginBudgetBytes }, { loginRouteFiles }, { defaultTheme }] = await Promise.all([
    import('../webpack.config'),
    import('./webpack/loginBudgetPlugin'),
    import('../src/theme/catalogue'),
  ]);
  const { compilation } = stats;
  const assets = compilation.getAssets().map((asset) => asset.name);
  const initial = new Set([...compilation.entrypoints.values()].flatMap((entry) => entry.getFiles()));
  const sizes = new Map(
    assets
      .filter((name) => /\.(js|css|html)$/.test(name))
      .map((name) => {
        const content = readFileSync(path.join(dist, name));
        return [name, { bytes: content.length, gzipped: gzipSync(content).length }];
      }),
  );
  const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  const sizeOf = (name: string) => sizes.get(name) ?? { bytes: 0, gzipped: 0 };

  const listed = [...sizes.keys()].filter((name) => !name.startsWith('themes/'));
  listed.sort((a, b) => Number(initial.has(b)) - Number(initial.has(a)) || sizeOf(b).bytes - sizeOf(a).bytes);
  console.log(`\nSPA built in ${(elapsedMs / 1000).toFixed(1)} s → dist/`);
  console.log(`${'file'.padEnd(48)}${'size'.padStart(11)}${'gzipped'.padStart(11)}`);
  for (const name of listed) {
    const { bytes, gzipped } = sizeOf(name);
    console.log(`${name.padEnd(48)}${kB(bytes).padStart(11)}${kB(gzipped).padStart(11)}${initial.has(name) ? '  initial' : ''}`);
  }
  console.log(`themes/*.css: ${assets.filter((name) => name.startsWith('themes/')).length} stylesheets`);

  const loginRoute = loginRouteFiles(compilation, defaultTheme);
  const total = loginRoute.reduce((sum, name) => sum + gzipSync(readFileSync(path.join(dist, name)), { level: 9 }).length, 0);
  console.log(`Login route JS+CSS: ${kB(total)} gzipped at level 9, budget ${kB(loginBudgetBytes)} (${loginRoute.join(', ')})`);
}

if (require.main === module) {
  // `npm run build` always builds (the SPA, then the server); the test run passes --if-stale to reuse an up-to-date build.
  const force = !process.argv.includes('--if-stale');
  buildSpa({ force })
    .then(async (ok) => ok && (await import('./buildServer')).buildServer({ force }))
    .then(
      (ok) => process.exit(ok ? 0 : 1),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
}
