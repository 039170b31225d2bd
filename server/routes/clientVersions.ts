import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  ClientBuildStatus,
  ClientPlatformQuery,
  ClientVersion,
  ClientVersionParams,
  clientPlatforms,
  DeleteClientVersionResponse,
} from '../../contracts/clientVersions';
import { Problem } from '../../contracts/problem';
import { audited } from '../authz/audited';
import { parseRange } from '../backups/signedUrls';
import type { AppContext } from '../context';
import { HttpProblem } from '../http/problems';
import type { ClientBuilds } from '../releases/clientBuilds';
import type { ReleaseCatalog } from '../releases/releaseCatalog';

const tags = ['client-versions'];
/** The release file's bytes (a stream; documented for the OpenAPI document only). */
const ReleaseFile = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The release: a zip (windows) or an OCI image layout tarball (containers)' });
const contentTypes = { windows: 'application/zip', containers: 'application/x-tar' } as const;

interface Deps {
  ctx: AppContext;
  catalog: ReleaseCatalog;
  builds: ClientBuilds;
}

/** /client-versions (SPEC §7, DESIGN §10): releases of the command-line client; any signed-in user lists and downloads. */
export const clientVersionRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { ctx, catalog, builds }) => {
  for (const platform of clientPlatforms) {
    app.get(
      `/${platform}`,
      {
        config: { access: 'user' },
        schema: { tags, summary: `The ${platform} client's versions, newest first; exactly one is the latest`, response: { 200: Type.Array(ClientVersion) } },
      },
      async () => catalog.list(platform),
    );
  }

  app.get(
    '/build',
    {
      config: { access: 'user' },
      schema: { tags, summary: "Where building the current version's releases stands (also pushed as ClientBuildProgress)", response: { 200: ClientBuildStatus } },
    },
    async () => builds.status(),
  );

  app.get(
    '/download/:version',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Download a release (attachment; ETag and X-Checksum-Sha256 are its sha256; Range supported)',
        params: ClientVersionParams,
        querystring: ClientPlatformQuery,
        response: { 200: ReleaseFile, 206: ReleaseFile, 400: Problem, 404: Problem, 416: Problem },
      },
    },
    async (request, reply) => {
      const { platform } = request.query;
      const { release, file } = await catalog.find(request.params.version, platform);
      const size = (await fs.promises.stat(file)).size;
      const headers: Record<string, string> = {
        'content-type': contentTypes[platform],
        'content-disposition': `attachment; filename="${release.fileName}"`,
        'accept-ranges': 'bytes',
        etag: `"${release.sha256}"`,
        'cache-control': 'no-cache',
        'x-checksum-sha256': release.sha256,
      };
      const range = parseRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        throw new HttpProblem(416, `The range is outside the file (${size} bytes).`, { headers: { 'content-range': `bytes */${size}` } });
      }
      if (range) {
        return reply
          .code(206)
          .headers({ ...headers, 'content-range': `bytes ${range.start}-${range.end}/${size}`, 'content-length': String(range.end - range.start + 1) })
          .send(fs.createReadStream(file, { start: range.start, end: range.end }));
      }
      return reply.headers({ ...headers, 'content-length': String(size) }).send(fs.createReadStream(file));
    },
  );

  app.delete(
    '/:version',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Remove an old version of a platform and its file (the latest cannot be removed)',
        params: ClientVersionParams,
        querystring: ClientPlatformQuery,
        response: { 200: DeleteClientVersionResponse, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const { version } = request.params;
      const { platform } = request.query;
      return audited(ctx, request, { action: 'clients.delete', target: version, detail: { platform } }, async () => {
        await catalog.remove(version, platform);
        return { version, platform };
      });
    },
  );
};
