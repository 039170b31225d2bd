import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Problem } from '../../contracts/problem';
import {
  maxMetricsRangeMs,
  MetricsQuery,
  MetricsResponse,
  SparklinesQuery,
  SparklinesResponse,
  Statistics,
  StatisticsQuery,
  type MetricName,
} from '../../contracts/statistics';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import { findGroup } from '../db/groups';
import { findInstanceRow } from '../db/instances';
import { principalOf } from '../http/auth';
import { HttpProblem, validationProblem } from '../http/problems';
import { queryMetrics, querySparklines } from '../metrics/query';
import { computeStatistics } from '../statistics/statistics';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const hourMs = 3_600_000;

/**
 * GET /api/statistics (the caller's figures, DESIGN §10), GET /instances/{id}/metrics (an
 * instance's series) and GET /instances/sparklines (one metric of a list page's instances). All
 * are scoped like the rest of the API: a group or instance the caller may not see answers 404,
 * and a list leaves it out.
 */
export const statisticsRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext; authz: Authorization }> = async (app, { ctx, authz }) => {
  app.get(
    '/api/statistics',
    {
      config: { access: 'user' },
      schema: {
        tags: ['statistics'],
        summary: "Counts of the caller's instances, backups, groups, users and logs; `groupId` narrows them to one group",
        querystring: StatisticsQuery,
        response: { 200: Statistics, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { groupId } = request.query;
      if (groupId !== undefined && !((await authz.canSeeGroup(principal, groupId)) && (await findGroup(ctx.db, groupId)))) {
        throw new HttpProblem(404, `No group has the id ${groupId}.`);
      }
      const visible = await authz.visibleGroupIds(principal);
      const groupIds = groupId !== undefined ? [groupId] : visible;
      return computeStatistics(ctx.db, { groupIds }, ctx.clock());
    },
  );

  app.get(
    '/instances/sparklines',
    {
      config: { access: 'user' },
      schema: {
        tags: ['instances'],
        summary: 'One metric of many instances over the last hour, a point a minute: the sparklines of a list page in one request',
        querystring: SparklinesQuery,
        response: { 200: SparklinesResponse, 400: Problem },
      },
    },
    async (request) => {
      const { ids, name } = request.query;
      // Scoped in the store query: an instance the caller may not see is absent, as one that does not exist.
      const groupIds = await authz.visibleGroupIds(principalOf(request));
      return querySparklines(ctx.db, [...new Set(ids.split(','))], groupIds, name, ctx.clock().getTime());
    },
  );

  app.get(
    '/instances/:id/metrics',
    {
      config: { access: 'user' },
      schema: {
        tags: ['instances'],
        summary: "An instance's metric series over a range (default: the last hour), at the finest resolution kept that fits",
        params: IdParams,
        querystring: MetricsQuery,
        response: { 200: MetricsResponse, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = (await authz.canSeeInstance(principalOf(request), id)) ? await findInstanceRow(ctx.db, id) : undefined;
      if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
      const now = ctx.clock().getTime();
      const to = request.query.to ? Date.parse(request.query.to) : now;
      const from = request.query.from ? Date.parse(request.query.from) : to - hourMs;
      if (!(from < to)) throw validationProblem({ from: ['must be before to'] });
      if (to - from > maxMetricsRangeMs) throw validationProblem({ from: ['the range may span at most 180 days'] });
      const names = request.query.names ? [...new Set(request.query.names.split(','))] as MetricName[] : undefined;
      return queryMetrics(ctx.db, id, row.type, { from, to, step: request.query.step, names }, now);
    },
  );
};
