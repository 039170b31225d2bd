import swagger from '@fastify/swagger';
import fp from 'fastify-plugin';
import { version } from '../../package.json';
import type { Config } from '../config';
import { sessionCookieName } from './sessionCookie';

/** OpenAPI 3 document of every route, generated from the routes' TypeBox schemas, at /api/openapi.json. */
export const openApi = fp<{ config: Config }>(async (app, { config }) => {
  // Runs before swagger's own onRoute hook, so the document says which calls need a session.
  app.addHook('onRoute', (route) => {
    if (route.schema && route.config?.access !== 'public') route.schema.security ??= [{ cookie: [] }, { bearer: [] }];
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Warden API', version, description: 'Control plane for hosted PostgreSQL and etcd instances.' },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          cookie: { type: 'apiKey', in: 'cookie', name: sessionCookieName },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, () => app.swagger());
});
