import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Page, PageQuery } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { AuditEntry } from '../../contracts/users';
import type { AppContext } from '../context';
import { listAuditPage } from '../db/auditQueries';
import { pageWindow } from '../db/paging';
import { validationProblem } from '../http/problems';

const AuditQuery = Type.Object(
  {
    page: PageQuery.properties.page,
    pageSize: PageQuery.properties.pageSize,
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    userId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Text the target contains (an id, an e-mail, an instance name), case-insensitively. */
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    outcome: Type.Optional(Type.Enum(['success', 'failure'])),
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

/** GET /admin/audit (admin only): who did what to which target, and whether it worked; newest first. */
export const auditRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/audit',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'The audit trail, newest first; action matches exactly or as a dotted prefix; target contains the text; from ≤ at < to',
        querystring: AuditQuery,
        response: { 200: Page(AuditEntry), 400: Problem },
      },
    },
    async (request) => {
      const { action, userId, outcome, target } = request.query;
      const from = request.query.from ? new Date(request.query.from) : undefined;
      const to = request.query.to ? new Date(request.query.to) : undefined;
      if (from && to && from > to) throw validationProblem({ to: ['must not be before from'] });
      return listAuditPage(ctx.db, { action, userId, outcome, target, from, to }, pageWindow(request.query));
    },
  );
};
