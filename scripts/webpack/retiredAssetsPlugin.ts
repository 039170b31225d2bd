import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Compiler } from 'webpack';

const pluginName = 'RetiredAssetsPlugin';

/** Beside the build: when each file of an earlier build stopped being built (ms since the epoch). */
export const retiredAssetsRecord = '.retired-assets.json';

/** A file (its last segment has a dot) among the hashed assets; the folders in static/ have none. */
const hashedFile = /^static\/(?:[^/]+\/)*[^/]+\.[^/]+$/;

function readRecord(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * The output's clean removes every file the new build did not write. A page still open on the
 * previous build asks for that build's chunks as it navigates, so its hashed assets are kept for
 * `graceMs` after the build that dropped them, then removed by the next build after that.
 */
export class RetiredAssetsPlugin {
  constructor(private readonly options: { graceMs: number; now?: () => number }) {}

  apply(compiler: Compiler): void {
    let retired: Record<string, number> | undefined;
    const recordFile = () => path.join(compiler.outputPath, retiredAssetsRecord);

    compiler.hooks.thisCompilation.tap(pluginName, (compilation) => {
      retired = undefined;
      const now = this.options.now?.() ?? Date.now();
      compiler.webpack.CleanPlugin.getCompilationHooks(compilation).keep.tap(pluginName, (file) => {
        if (file === retiredAssetsRecord) return true;
        if (!hashedFile.test(file)) return undefined;
        retired ??= readRecord(recordFile());
        retired[file] ??= now;
        if (now - retired[file] < this.options.graceMs) return true;
        delete retired[file];
        return undefined;
      });
    });

    compiler.hooks.afterEmit.tap(pluginName, (compilation) => {
      const record = retired ?? readRecord(recordFile());
      // A file built again (a revert) is current, not retired.
      for (const name of Object.keys(compilation.assets)) delete record[name];
      writeFileSync(recordFile(), `${JSON.stringify(record, null, 1)}\n`);
    });
  }
}
