import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/**
 * The compiled server's entry (build/server/main.js): loads the bundle beside it (server.js) with V8's
 * code cache, so that a start does not parse and compile megabytes of JavaScript again. The cache is
 * written a few seconds after a start that had none (or one V8 refused: another Node, other flags), or
 * when it stops sooner, so it holds the functions a start and its first requests ran; where it cannot
 * be written, starts compile as before. Only Node's own modules may be imported here: this file is its
 * own small bundle.
 */
const bundle = path.join(path.dirname(__filename), 'server.js');
const cacheFile = `${bundle}.cache`;
const writeCacheAfterMs = 5_000;

function readCache(): Buffer | undefined {
  try {
    return fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

const cachedData = readCache();
const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'utf8')), { filename: bundle, cachedData });
const bundleModule = new Module(bundle, module);
bundleModule.filename = bundle;
bundleModule.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(path.dirname(bundle));
const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
wrapper.call(bundleModule.exports, bundleModule.exports, Module.createRequire(bundle), bundleModule, bundle, path.dirname(bundle));
bundleModule.loaded = true;

if (cachedData === undefined || script.cachedDataRejected) {
  let written = false;
  const writeCache = () => {
    if (written) return;
    written = true;
    try {
      // Written aside and renamed, so a start at the same moment reads the old cache or the new one whole.
      const aside = `${cacheFile}.${process.pid}`;
      fs.writeFileSync(aside, script.createCachedData());
      fs.renameSync(aside, cacheFile);
    } catch {
      // A read-only install starts without the cache.
    }
  };
  setTimeout(writeCache, writeCacheAfterMs).unref();
  // A server stopped sooner leaves it on its way out.
  process.once('exit', writeCache);
}

(bundleModule.exports as { run(): void }).run();
