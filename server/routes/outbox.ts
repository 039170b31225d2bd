import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Page, PageQuery } from '../../contracts/page';
import { OutboxMessage } from '../../contracts/users';
import type { AppContext } from '../context';
import { listOutbox } from '../db/outbox';
import { pageWindow } from '../db/paging';

const OutboxQuery = Type.Object(
  {
    page: PageQuery.properties.page,
    pageSize: PageQuery.properties.pageSize,
    sort: Type.Optional(Type.Union([Type.Literal('-at'), Type.Literal('at')], { default: '-at' })),
    search: PageQuery.properties.search,
  },
  { additionalProperties: false },
);

/** GET /admin/outbox (admin only): every e-mail Warden wrote, newest first, with how delivery went. */
export const outboxRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/admin/outbox',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'E-mails written (the only copy when SMTP is not configured); search by recipient',
        querystring: OutboxQuery,
        response: { 200: Page(OutboxMessage) },
      },
    },
    async (request) => {
      const { search, sort } = request.query;
      return listOutbox(ctx.db, { search, order: sort === 'at' ? 'asc' : 'desc', window: pageWindow(request.query) });
    },
  );
};
