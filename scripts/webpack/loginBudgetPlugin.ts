import { gzipSync } from 'node:zlib';
import type { Compilation, Compiler } from 'webpack';

const pluginName = 'LoginBudgetPlugin';

/**
 * What a first visit to /login fetches: the `login` entry's chunks (login.html, src/login.tsx), the
 * page it loads after the first paint (chunk group `login-page`) and the default theme's stylesheet (the
 * theme boot script is inline in the page). bench/bundle.ts measures the same from Chromium.
 */
export function loginRouteFiles(compilation: Compilation, defaultTheme: string): string[] {
  const groups = [compilation.entrypoints.get('login'), compilation.namedChunkGroups.get('login-page')];
  const files = groups.flatMap((group) => group?.getFiles() ?? []).filter((name) => /\.(js|css)$/.test(name));
  return [...new Set([...files, `themes/${defaultTheme}.css`])].filter((name) => compilation.getAsset(name));
}

/** Each file gzipped at level 9, as bench/bundle.ts counts it. */
function gzippedSize(compilation: Compilation, name: string): number {
  return gzipSync(compilation.getAsset(name)!.source.buffer(), { level: 9 }).length;
}

/**
 * Fails the production build when the login route's JS and CSS, each file gzipped at level 9 and
 * summed, outgrow the budget: the sign-in page is every visitor's first load, and what is behind
 * sign-in belongs in lazy chunks.
 */
export class LoginBudgetPlugin {
  constructor(private readonly options: { budgetBytes: number; defaultTheme: string }) {}

  apply(compiler: Compiler): void {
    compiler.hooks.thisCompilation.tap(pluginName, (compilation) => {
      compilation.hooks.processAssets.tap({ name: pluginName, stage: compiler.webpack.Compilation.PROCESS_ASSETS_STAGE_REPORT }, () => {
        const files = loginRouteFiles(compilation, this.options.defaultTheme);
        if (!compilation.entrypoints.has('login') || !compilation.namedChunkGroups.has('login-page')) {
          compilation.errors.push(new compiler.webpack.WebpackError(`${pluginName}: no entry "login" loading chunk group "login-page" (the sign-in page, src/login.tsx).`));
          return;
        }
        const total = files.reduce((sum, name) => sum + gzippedSize(compilation, name), 0);
        if (total > this.options.budgetBytes) {
          const kiB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
          compilation.errors.push(
            new compiler.webpack.WebpackError(
              `The login route's JS and CSS are ${kiB(total)} gzipped, over the budget of ${kiB(this.options.budgetBytes)} ` +
                `(${files.join(', ')}). Load what the sign-in page does not need lazily.`,
            ),
          );
        }
      });
    });
  }
}
