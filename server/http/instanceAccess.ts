import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import { findInstance } from '../db/instances';
import type { Db } from '../db/schema';
import { principalOf } from './auth';
import type { InstanceService } from '../instances/instanceService';
import { HttpProblem, validationProblem } from './problems';
import { hasRole } from '../../contracts/roles';
import { findGroup } from '../db/groups';

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

/** The group a new instance goes into: a regular user's own group, or for an admin any group or none (400 otherwise). */
export function groupForNewInstance(db: Db, authz: Authorization) {
  return async (request: FastifyRequest, groupId: string | null | undefined): Promise<string | null> => {
    const principal = principalOf(request);
    if (groupId === null || groupId === undefined) {
      if (!hasRole(principal, 'admin')) throw validationProblem({ groupId: ['Choose one of your groups for the instance.'] });
      return null;
    }
    if (!(await authz.canSeeGroup(principal, groupId)) || !(await findGroup(db, groupId))) {
      throw validationProblem({ groupId: [`No group has the id ${groupId}.`] });
    }
    return groupId;
  };
}

/** A family of /instances/{id}… routes: the context, the authorization layer and the instance service. */
export type InstanceRoutes = FastifyPluginAsyncTypebox<{ ctx: AppContext; authz: Authorization; service: InstanceService }>;
