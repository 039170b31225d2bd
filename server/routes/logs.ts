import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  ClearLogsQuery,
  ClearLogsResponse,
  LogSize,
  LogsAllPage,
  LogsAllQuery,
  LogsExportQuery,
  LogsHistogram,
  LogsHistogramQuery,
  logLevels,
  type LogLevel,
} from '../../contracts/logs';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import { findInstance } from '../db/instances';
import { searchWords } from '../db/logSearch';
import { logHistogram, logSize, queryLogPage, removeLogs, streamLogs, type LogFilter, type LogScope, type StoredLogRow } from '../db/logs';
import { callerEmail, principalOf } from '../http/auth';
import { HttpProblem, validationProblem } from '../http/problems';

const tags = ['logs'];
const ExportFile = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'NDJSON (one entry a line) or CSV (RFC 4180, header row)' });
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));

type FilterQuery = {
  level?: string;
  minLevel?: LogLevel;
  instanceId?: string;
  handler?: string;
  search?: string;
  from?: string;
  to?: string;
};

/** One CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const csvColumns = ['id', 'timestamp', 'level', 'instanceId', 'handler', 'message', 'properties'] as const;

function csvLine(row: StoredLogRow): string {
  const fields = [String(row.id), row.timestamp, row.level, row.instance_id ?? '', row.handler, row.message, row.properties];
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** One LogEntry as a JSON line; the stored properties text is JSON already, so it goes in as it is. */
function ndjsonLine(row: StoredLogRow): string {
  const head = JSON.stringify({ id: row.id, timestamp: row.timestamp, level: row.level, instanceId: row.instance_id, handler: row.handler, message: row.message });
  return `${head.slice(0, -1)},"properties":${row.properties}}\n`;
}

/** `20261124T101500Z`: a time that reads well in a file name and sorts. */
const fileTime = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
/** Instance names are [a-z0-9-]; anything else is dropped so the header stays a plain token. */
const fileSafe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 64);

/**
 * /logs (SPEC §7, DESIGN §10): the one timeline of every entry the caller may see. Admins see all;
 * a regular user sees the entries of their groups' instances; the control plane's own entries
 * (no instance) are admins' only. An instance the caller may not see answers 404 like everywhere.
 */
export const logRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext; authz: Authorization }> = async (app, { ctx, authz }) => {
  const scopeOf = async (request: FastifyRequest): Promise<LogScope> => {
    const groupIds = await authz.visibleGroupIds(principalOf(request));
    return groupIds === null ? { kind: 'all' } : { kind: 'groups', groupIds };
  };

  /** The query's filters, checked: levels combined, times ordered, the instance visible, the search made of words. */
  const filterOf = async (request: FastifyRequest, query: FilterQuery): Promise<LogFilter> => {
    const filter: LogFilter = { scope: await scopeOf(request) };
    let levels: LogLevel[] | undefined = query.level ? [...new Set(query.level.split(',') as LogLevel[])] : undefined;
    if (query.minLevel) {
      const atLeast = logLevels.slice(logLevels.indexOf(query.minLevel));
      levels = (levels ?? [...logLevels]).filter((level) => atLeast.includes(level));
    }
    if (levels) filter.levels = levels;
    if (query.instanceId === 'none') {
      if (!hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, "Only admins may read the control plane's own entries.");
      filter.instanceId = null;
    } else if (query.instanceId) {
      if (!(await authz.canSeeInstance(principalOf(request), query.instanceId))) {
        throw new HttpProblem(404, `No instance has the id ${query.instanceId}.`);
      }
      filter.instanceId = query.instanceId;
    }
    if (query.handler) filter.handler = query.handler;
    if (query.search !== undefined && query.search.trim() !== '') {
      const words = searchWords(query.search);
      if (!words) throw validationProblem({ search: ['must contain at least one word (letters or digits)'] });
      filter.search = words;
    }
    if (query.from) filter.from = new Date(query.from).toISOString();
    if (query.to) filter.to = new Date(query.to).toISOString();
    if (filter.from && filter.to && filter.from > filter.to) throw validationProblem({ to: ['must not be before from'] });
    return filter;
  };

  app.get(
    '/logs/log-levels',
    { config: { access: 'user' }, schema: { tags, summary: 'The six log levels, lowest first', response: { 200: Type.Array(Type.String()) } } },
    async () => [...logLevels],
  );

  app.get(
    '/logs/all',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Log entries the caller may see, in time order (newest first by default); page by `cursor` (nextCursor) for stable pages',
        querystring: LogsAllQuery,
        response: { 200: LogsAllPage, 400: Problem, 403: Problem, 404: Problem },
      },
    },
    async (request) => {
      const { page = 1, pageSize = 100, sort = '-timestamp', cursor } = request.query;
      const filter = await filterOf(request, request.query);
      const order = sort === 'timestamp' ? 'asc' : 'desc';
      let position;
      if (cursor) {
        const split = cursor.lastIndexOf('_');
        const timestamp = cursor.slice(0, split);
        if (Number.isNaN(Date.parse(timestamp))) throw validationProblem({ cursor: ['is not a cursor this API answered'] });
        position = { timestamp, id: Number(cursor.slice(split + 1)) };
      }
      const result = await queryLogPage(ctx.db, filter, { limit: pageSize, offset: (page - 1) * pageSize, order, cursor: position });
      return {
        items: result.items,
        total: result.total,
        totalExact: result.totalExact,
        page,
        pageSize,
        nextCursor: result.nextCursor && `${result.nextCursor.timestamp}_${result.nextCursor.id}`,
      };
    },
  );

  app.get(
    '/logs/size',
    { config: { access: 'user' }, schema: { tags, summary: "Bytes, entries and time span of the caller's log scope", response: { 200: LogSize } } },
    async (request) => logSize(ctx.db, await scopeOf(request)),
  );

  app.get(
    '/logs/histogram',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Entries per level in equal slices of [from, to), with the /logs/all filters', querystring: LogsHistogramQuery, response: { 200: LogsHistogram, 400: Problem, 403: Problem, 404: Problem } },
    },
    async (request) => {
      const filter = await filterOf(request, request.query);
      return logHistogram(ctx.db, { ...filter, from: filter.from!, to: filter.to! }, request.query.buckets ?? 60);
    },
  );

  app.get(
    '/logs/export',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Every entry matching the /logs/all filters as a file (ndjson or csv), streamed', querystring: LogsExportQuery, response: { 200: ExportFile, 400: Problem, 403: Problem, 404: Problem } },
    },
    async (request, reply) => {
      const filter = await filterOf(request, request.query);
      const format = request.query.format ?? 'ndjson';
      const order = request.query.sort === 'timestamp' ? 'asc' : 'desc';
      let scope = 'all';
      if (filter.instanceId === null) scope = 'control-plane';
      else if (filter.instanceId) scope = fileSafe((await findInstance(ctx.db, filter.instanceId))?.name ?? filter.instanceId);
      const range = `${filter.from ? fileTime(filter.from) : 'start'}-${fileTime(filter.to ?? ctx.clock().toISOString())}`;
      const fileName = `warden-logs_${scope}_${range}.${format}`;

      const db = ctx.db;
      async function* lines() {
        if (format === 'csv') yield `${csvColumns.join(',')}\r\n`;
        // One batch of text at a time: a slow reader holds the next query back (constant memory).
        for await (const batch of streamLogs(db, filter, order)) {
          yield batch.map(format === 'csv' ? csvLine : ndjsonLine).join('');
        }
      }
      return reply
        .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(lines(), { objectMode: false }));
    },
  );

  app.post(
    '/logs/clear',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Removes entries: admins any, group members their instances' (instanceId required)",
        querystring: ClearLogsQuery,
        body: EmptyBody,
        response: { 200: ClearLogsResponse, 400: Problem, 403: Problem, 404: Problem },
      },
    },
    async (request) => {
      const { instanceId, before, level } = request.query;
      const principal = principalOf(request);
      const admin = hasRole(principal, 'admin');
      const target = instanceId ?? 'all';
      const detail = { instanceId: instanceId ?? null, before: before ?? null, level: level ?? null };
      return audited(ctx, request, { action: 'logs.clear', target, detail }, async (note) => {
        if (!admin && (!instanceId || instanceId === 'none')) {
          throw new HttpProblem(403, 'Only admins may clear entries beyond one of their instances; name the instance.');
        }
        const filter: LogFilter = { scope: { kind: 'all' } };
        if (instanceId === 'none') filter.instanceId = null;
        else if (instanceId) {
          if (!(await authz.canSeeInstance(principal, instanceId))) throw new HttpProblem(404, `No instance has the id ${instanceId}.`);
          filter.instanceId = instanceId;
        }
        if (before) filter.to = new Date(before).toISOString();
        if (level) filter.levels = [level];
        const removed = await removeLogs(ctx.db, filter);
        note.detail = { ...detail, removed };
        const who = (await callerEmail(ctx.db, request)) ?? principal.userId;
        const what = [
          level ? `${level} entries` : 'entries',
          instanceId === 'none' ? 'of the control plane' : instanceId ? `of instance ${instanceId}` : 'of every instance and the control plane',
          before ? `before ${filter.to}` : '',
        ].filter(Boolean).join(' ');
        // Written after the removal, so the record of the clearing survives it.
        await ctx.logs.write({
          level: 'information',
          instanceId: filter.instanceId ?? null,
          handler: 'logs',
          message: `${who} cleared ${removed} ${what}`,
          properties: { removed, clearedBy: principal.userId, ...detail },
        });
        return { removed };
      });
    },
  );
};
