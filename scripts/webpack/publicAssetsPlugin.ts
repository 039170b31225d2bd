import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Compiler } from 'webpack';
import { themes } from '../../src/theme/catalogue';
import { themeCss } from '../../src/theme/themeCss';

const pluginName = 'PublicAssetsPlugin';

/**
 * Emits what the bundle does not import: the files of public/ as they are (favicon.svg,
 * robots.txt …; index.html excepted, HtmlWebpackPlugin renders it) and one generated
 * `themes/<name>.css` per catalogue theme. Assets are emitted into the compilation, so
 * webpack-dev-server serves them from memory exactly as the build writes them to dist/.
 */
export class PublicAssetsPlugin {
  constructor(private readonly publicDir: string) {}

  apply(compiler: Compiler): void {
    const { RawSource } = compiler.webpack.sources;
    compiler.hooks.thisCompilation.tap(pluginName, (compilation) => {
      compilation.hooks.processAssets.tapPromise(
        { name: pluginName, stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
        async () => {
          compilation.contextDependencies.add(this.publicDir);
          const entries = await readdir(this.publicDir, { withFileTypes: true });
          for (const entry of entries) {
            if (!entry.isFile() || entry.name === 'index.html') continue;
            const file = path.join(this.publicDir, entry.name);
            compilation.fileDependencies.add(file);
            compilation.emitAsset(entry.name, new RawSource(await readFile(file)));
          }
          for (const theme of themes) {
            // Left readable (and without 72 source maps): each is a few hundred bytes gzipped.
            compilation.emitAsset(`themes/${theme.name}.css`, new RawSource(themeCss(theme)), { minimized: true });
          }
        },
      );
    });
  }
}
