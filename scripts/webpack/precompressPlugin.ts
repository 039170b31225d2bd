import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Compiler } from 'webpack';

const pluginName = 'PrecompressPlugin';
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Hashed scripts and stylesheets; source maps, licences and the unhashed files stay as they are. */
const compressible = /^static\/.+\.(js|css)$/;
/** Below this a compressed copy saves less than its headers cost. */
const minBytes = 1024;

/**
 * Writes `<asset>.br` and `<asset>.gz` (maximum levels) beside every hashed asset, so the server
 * sends them as they are (server/http/spa.ts) instead of compressing each response. Kept in
 * webpack's cache, so an unchanged chunk is not compressed again.
 */
export class PrecompressPlugin {
  apply(compiler: Compiler): void {
    const { RawSource } = compiler.webpack.sources;
    compiler.hooks.thisCompilation.tap(pluginName, (compilation) => {
      const cache = compilation.getCache(pluginName);
      compilation.hooks.processAssets.tapPromise(
        { name: pluginName, stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER },
        async (assets) => {
          const names = Object.keys(assets).filter((name) => compressible.test(name) && assets[name].size() >= minBytes);
          await Promise.all(
            names.map(async (name) => {
              const source = assets[name];
              const item = cache.getItemCache(name, cache.getLazyHashedEtag(source));
              let compressed = await item.getPromise<{ br: Buffer; gz: Buffer } | undefined>();
              if (!compressed) {
                const content = source.buffer();
                const [br, gz] = await Promise.all([
                  brotli(content, {
                    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
                  }),
                  gzipAsync(content, { level: constants.Z_BEST_COMPRESSION }),
                ]);
                compressed = { br, gz };
                await item.storePromise(compressed);
              }
              const info = { compressed: true, immutable: true };
              compilation.emitAsset(`${name}.br`, new RawSource(compressed.br), info);
              compilation.emitAsset(`${name}.gz`, new RawSource(compressed.gz), info);
            }),
          );
        },
      );
    });
  }
}
