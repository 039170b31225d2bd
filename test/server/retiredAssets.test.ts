import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import webpack from 'webpack';
import { RetiredAssetsPlugin, retiredAssetsRecord } from '../../scripts/webpack/retiredAssetsPlugin';

const hour = 60 * 60 * 1000;
let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-retired-assets-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Builds `source` into dir/dist as the console's build names its files, at the time `now`. */
async function build(source: string, now: number): Promise<string[]> {
  fs.writeFileSync(path.join(dir, 'entry.js'), source);
  const compiler = webpack({
    mode: 'production',
    context: dir,
    entry: './entry.js',
    output: { path: path.join(dir, 'dist'), filename: 'static/js/[name].[contenthash:8].js', clean: true },
    plugins: [new RetiredAssetsPlugin({ graceMs: 24 * hour, now: () => now })],
  });
  const stats = await new Promise<webpack.Stats>((resolve, reject) => compiler.run((error, result) => (error || !result ? reject(error) : resolve(result))));
  await new Promise<void>((resolve) => compiler.close(() => resolve()));
  expect(stats.hasErrors()).toBe(false);
  return fs.readdirSync(path.join(dir, 'dist/static/js')).sort();
}

describe('RetiredAssetsPlugin', () => {
  it('keeps the previous build’s hashed files for the grace period after a rebuild, then removes them', async () => {
    const [first] = await build('console.log("first build");', 0);

    const afterSecond = await build('console.log("second build");', 1 * hour);
    expect(afterSecond).toHaveLength(2);
    expect(afterSecond).toContain(first);
    const [second] = afterSecond.filter((name) => name !== first);

    // Still within a day of the build that dropped it.
    expect(await build('console.log("second build");', 20 * hour)).toEqual(afterSecond);

    expect(await build('console.log("second build");', 26 * hour)).toEqual([second]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'dist', retiredAssetsRecord), 'utf8'))).toEqual({});
  }, 60_000);

  it('forgets a retired file that a later build makes again', async () => {
    const [first] = await build('console.log("first build");', 0);
    await build('console.log("second build");', 1 * hour);
    await build('console.log("first build");', 2 * hour);

    const record = JSON.parse(fs.readFileSync(path.join(dir, 'dist', retiredAssetsRecord), 'utf8')) as Record<string, number>;
    expect(Object.keys(record)).not.toContain(`static/js/${first}`);
    expect(Object.keys(record)).toHaveLength(1);
  }, 60_000);
});
