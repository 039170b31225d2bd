import type { IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import webpack, { type Configuration } from 'webpack';
import type {} from 'webpack-dev-server'; // adds Configuration['devServer']
import { LoginBudgetPlugin } from './scripts/webpack/loginBudgetPlugin';
import { prerenderedLoginPage } from './scripts/webpack/prerenderLogin';
import { PrecompressPlugin } from './scripts/webpack/precompressPlugin';
import { PublicAssetsPlugin } from './scripts/webpack/publicAssetsPlugin';
import { RetiredAssetsPlugin } from './scripts/webpack/retiredAssetsPlugin';
import { defaultTheme, themes } from './src/theme/catalogue';

export interface WebpackEnv {
  production?: boolean;
  /** The Warden server the dev server proxies API calls and the hub to. */
  serverUrl?: string;
}

const root = __dirname;
const publicPath = '/';

// Chakra UI 3 styles rely on color-mix() and cascade layers; these are the browsers that have
// both. One query for Babel and for webpack's own runtime code.
const browsers = 'chrome >= 111, edge >= 111, firefox >= 115, safari >= 16.4';

// Paths a browser may navigate to that still belong to the server (downloads, the OpenAPI
// document, the hub upgrade); everything else that asks for HTML is a screen of the SPA.
const serverPathPrefixes = ['/api/', '/uihub', '/healthz', '/client-versions/download/'];

/**
 * Most a first visit to /login may fetch: its JS and CSS, each file gzipped at level 9, summed
 * (scripts/webpack/loginBudgetPlugin.ts). A production build over it fails. The target is 120 KiB;
 * the route weighs 73 KiB since the sign-in page loads alone (login.html: React and the page, without
 * Redux, the router or Chakra), and the budget keeps a small margin over that so it can only shrink.
 * react-dom alone is 57 KiB of it.
 */
export const loginBudgetBytes = 80 * 1024;

/**
 * react-router's package exports name only its development build, which logs warnings and shows
 * a "Hey developer" hint on the default error screen. Production builds take the production build
 * the package ships beside it (the same files, that switch off).
 */
const reactRouterDevelopmentBuild = /([\\/]react-router[\\/]dist[\\/])development([\\/])/;
function toReactRouterProductionBuild(resource: { createData?: { resource?: string; context?: string } }): void {
  const created = resource.createData;
  if (!created?.resource) return;
  created.resource = created.resource.replace(reactRouterDevelopmentBuild, '$1production$2');
  // Its own imports (./chunk-….mjs) resolve beside it, in the production folder.
  created.context = path.dirname(created.resource);
}

/**
 * Screen and API paths collide (/instances is a screen and GET /instances), so the dev server
 * sends to the Warden server every request that is not a page navigation.
 */
function isServerRequest(pathname: string, req: IncomingMessage): boolean {
  return serverPathPrefixes.some((prefix) => pathname.startsWith(prefix)) || !req.headers.accept?.includes('text/html');
}

/**
 * How long a production build keeps the previous builds' hashed assets: a console left open on
 * one goes on loading its screens after an upgrade (scripts/webpack/retiredAssetsPlugin.ts).
 */
const retiredAssetsGraceMs = 24 * 60 * 60 * 1000;

export default function webpackConfig(env: WebpackEnv = {}): Configuration {
  const production = Boolean(env.production);
  const mode = production ? 'production' : 'development';
  const hash = production ? '.[contenthash:8]' : '';

  return {
    mode,
    context: root,
    target: `browserslist:${browsers}`,
    // The console, and the sign-in page a first visit loads alone (login.html).
    entry: { main: './src/index.tsx', login: './src/login.tsx' },
    output: {
      path: path.join(root, 'dist'),
      publicPath,
      filename: `static/js/[name]${hash}.js`,
      chunkFilename: `static/js/[name]${hash}.chunk.js`,
      assetModuleFilename: 'static/media/[name].[contenthash:8][ext]',
      clean: true,
    },
    // No source maps in production: they would double what is built and served.
    devtool: production ? false : 'eval-cheap-module-source-map',
    resolve: { extensions: ['.tsx', '.ts', '...'] },
    module: {
      rules: [
        {
          test: /\.[cm]?[jt]sx?$/,
          exclude: /node_modules/,
          use: { loader: 'babel-loader', options: { cacheDirectory: true, targets: browsers } },
        },
        {
          test: /[\\/]node_modules[\\/]@chakra-ui[\\/]react[\\/]dist[\\/]esm[\\/]theme[\\/]/,
          use: path.join(root, 'scripts/webpack/pureDefinitionsLoader.ts'),
        },
      ],
    },
    cache: { type: 'filesystem', buildDependencies: { config: [__filename] } },
    optimization: {
      nodeEnv: false, // set by the DefinePlugin below, with the other build-time values
      ...(production && {
        runtimeChunk: 'single',
        splitChunks: {
          // React goes to one long-cached chunk both pages load (the sign-in page after its first paint); the other libraries the console's
          // initial chunks need to another, which the sign-in page does without; libraries only lazy
          // routes need stay in those routes' async chunks (webpack's default groups).
          cacheGroups: {
            react: { test: /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/, name: 'react', chunks: 'all', enforce: true, priority: 10 },
            vendor: { test: /[\\/]node_modules[\\/]/, name: 'vendor', chunks: (chunk) => chunk.name === 'main', enforce: true },
          },
        },
      }),
    },
    // The build summary (scripts/build.ts) reports gzipped sizes instead.
    performance: { hints: false },
    plugins: [
      new webpack.DefinePlugin({
        'process.env.NODE_ENV': JSON.stringify(mode),
        'process.env.WARDEN_API_URL': JSON.stringify(process.env.WARDEN_API_URL ?? ''),
        'process.env.PUBLIC_PATH': JSON.stringify(publicPath),
      }),
      // The same page shell for both: the theme boot script and stylesheet, the build id; the sign-in
      // page comes drawn, to be hydrated.
      ...(['main', 'login'] as const).map(
        (entry) =>
          new HtmlWebpackPlugin({
            template: path.join(root, 'public/index.html'),
            filename: entry === 'main' ? 'index.html' : 'login.html',
            chunks: [entry],
            // The sign-in page adds its scripts itself, after its first paint.
            inject: entry === 'main',
            // The build id lets an open page tell that the server now serves another build (src/app/buildId.ts).
            templateParameters: (compilation, assets) => ({
              publicPath,
              defaultTheme,
              buildId: compilation.fullHash ?? compilation.hash ?? '',
              themeNames: themes.map((t) => t.name).join(' '),
              darkThemeNames: themes.filter((t) => t.palette.dark).map((t) => t.name).join(' '),
              prerendered: entry === 'login' ? prerenderedLoginPage() : { head: '', body: '' },
              themeBoot: readFileSync(path.join(root, 'src/theme/themeBoot.js'), 'utf8'),
              afterFirstPaint: entry === 'login' ? { scripts: assets.js.join(' '), loader: readFileSync(path.join(root, 'src/afterFirstPaint.js'), 'utf8') } : null,
            }),
          }),
      ),
      new PublicAssetsPlugin(path.join(root, 'public')),
      ...(production
        ? [
            new webpack.NormalModuleReplacementPlugin(reactRouterDevelopmentBuild, toReactRouterProductionBuild),
            new PrecompressPlugin(),
            new RetiredAssetsPlugin({ graceMs: retiredAssetsGraceMs }),
            new LoginBudgetPlugin({ budgetBytes: loginBudgetBytes, defaultTheme }),
          ]
        : []),
    ],
    devServer: {
      host: '127.0.0.1',
      port: 3000,
      hot: true,
      // As the server does: /login is the sign-in page alone, every other screen the console.
      historyApiFallback: { disableDotRule: true, rewrites: [{ from: /^\/login$/, to: '/login.html' }] },
      static: false,
      proxy: [{ context: isServerRequest, target: env.serverUrl ?? 'http://127.0.0.1:8080', ws: true }],
    },
  };
}
