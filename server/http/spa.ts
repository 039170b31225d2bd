import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HttpProblem, sendProblem } from './problems';

// Paths that never answer the SPA, even to a navigation: the API's own documents, the hub, health,
// downloads the browser navigates to, built assets, and /auth (e-mail links such as confirmEmail).
const apiOnlyPrefixes = ['/api', '/uihub', '/healthz', '/client-versions/download', '/downloads', '/logs/export', '/static', '/themes', '/auth'];


function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0];
}

/**
 * A browser loading a page (address bar, reload, link) asks for HTML; the SPA's own fetches ask for
 * JSON. Screen paths like /instances share their path with API routes, so Accept decides.
 */
export function isNavigation(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const accept = request.headers.accept ?? '';
  const urlPath = pathOf(request);
  // Only the console lives at /: a client taking anything (curl's Accept: */*, none at all) gets it.
  if (urlPath === '/') return accept === '' || accept.includes('text/html') || accept.includes('*/*');
  if (!accept.includes('text/html')) return false;
  // A last segment with a dot names a file (favicon.ico), not a screen.
  if (/\.[^/]*$/.test(urlPath)) return false;
  return !apiOnlyPrefixes.some((prefix) => urlPath === prefix || urlPath.startsWith(`${prefix}/`));
}

/** Serves the built SPA from staticDir: index.html for navigations, hashed assets, top-level files. */
export const spa = fp<{ staticDir: string }>(async (app, { staticDir }) => {
  // Only for reply.sendFile; the routes below decide what is served and how long it may be cached.
  // preCompressed: the build writes .br and .gz beside each hashed asset (scripts/webpack), sent
  // by Accept-Encoding with Content-Encoding and `Vary: accept-encoding` instead of compressing per request.
  await app.register(fastifyStatic, { root: staticDir, serve: false, suppressWarning: true, preCompressed: true });

  // A first visit to /login loads the sign-in page alone (src/login.tsx); a build without it, the console.
  const pageFor = (urlPath: string) => (urlPath === '/login' && fs.existsSync(path.join(staticDir, 'login.html')) ? 'login.html' : 'index.html');

  const sendIndex = (reply: FastifyReply, page = 'index.html') => {
    if (!fs.existsSync(path.join(staticDir, 'index.html'))) {
      return sendProblem(
        reply,
        new HttpProblem(503, `The web console is not built: run \`npm run build\` (looked in ${staticDir}).`),
      );
    }
    // no-cache: the browser revalidates, so a new build's asset names are picked up at once.
    return reply.header('cache-control', 'no-cache').sendFile(page, { cacheControl: false });
  };

  // Runs before routing decisions matter (and before the access hook), so a navigation to a path
  // that is also an API route, even an admin-only one, still gets the page.
  app.addHook('onRequest', async (request, reply) => {
    if (isNavigation(request)) return sendIndex(reply, pageFor(pathOf(request)));
  });

  // webpack names these with a content hash, so a browser may keep them forever.
  app.get<{ Params: { '*': string } }>(
    '/static/*',
    { config: { access: 'public' }, schema: { hide: true } },
    (request, reply) => reply.sendFile(`static/${request.params['*']}`, { immutable: true, maxAge: '365d' }),
  );
  // Theme stylesheets keep their names (the stored choice names them), so they are revalidated.
  app.get<{ Params: { '*': string } }>(
    '/themes/*',
    { config: { access: 'public' }, schema: { hide: true } },
    (request, reply) =>
      reply.header('cache-control', 'no-cache').sendFile(`themes/${request.params['*']}`, { cacheControl: false }),
  );

  // favicon.ico, robots.txt …: not hashed, so revalidated on each use.
  app.get<{ Params: { file: string } }>(
    '/:file(^[\\w-]+\\.[\\w.]+$)',
    { config: { access: 'public' }, schema: { hide: true } },
    (request, reply) => {
      if (request.params.file === 'index.html' || request.params.file === 'login.html') return sendIndex(reply, request.params.file);
      return reply.header('cache-control', 'no-cache').sendFile(request.params.file, { cacheControl: false });
    },
  );
});
