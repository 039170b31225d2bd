import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import { findInstance } from '../db/instances';
import type { Db } from '../db/schema';
import { principalOf } from './auth';
import type { InstanceService } from '../instances/instanceService';
import { HttpProblem } from './problems';

/**
 * The instance a route names, if the caller may see it; otherwise 404, so outsiders cannot tell
 * hidden from absent. Every /instances/{id}… route family reads its instance through this.
 */
export function visibleInstance(db: Db, authz: Authorization) {
  return async (request: FastifyRequest, instanceId: string) => {
    const instance = (await authz.canSeeInstance(principalOf(request), instanceId)) ? await findInstance(db, instanceId) : undefined;
    if (!instance) throw new HttpProblem(404, `No instance has the id ${instanceId}.`);
    return instance;
  };
}

/** A family of /instances/{id}… routes: the context, the authorization layer and the instance service. */
export type InstanceRoutes = FastifyPluginAsyncTypebox<{ ctx: AppContext; authz: Authorization; service: InstanceService }>;
