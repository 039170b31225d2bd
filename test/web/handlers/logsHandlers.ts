import { http, HttpResponse } from 'msw';
import type { LogEntry, LogsAllPage, LogsHistogram, LogSize } from '../../../contracts/logs';
import { requestLog } from './pages';

/**
 * A fake /logs API over `entries` (newest first): filters level, instanceId, handler and search
 * (words, case-insensitive), pages by cursor `<timestamp>_<id>`; records what was asked.
 */
export function logsServer(entries: LogEntry[] = [], options: { size?: LogSize } = {}) {
  const state = { entries, cleared: [] as URLSearchParams[] };
  const queries = requestLog();
  const exports = requestLog();
  const matching = (query: URLSearchParams) => {
    const levels = query.get('level')?.split(',');
    const instanceId = query.get('instanceId');
    const handler = query.get('handler');
    const words = query.get('search')?.toLowerCase().split(/\s+/).filter(Boolean) ?? [];
    return state.entries.filter(
      (e) =>
        (!levels || levels.includes(e.level)) &&
        (!instanceId || (instanceId === 'none' ? e.instanceId === null : e.instanceId === instanceId)) &&
        (!handler || e.handler === handler) &&
        words.every((w) => e.message.toLowerCase().includes(w)),
    );
  };
  const handlers = [
    http.get('/logs/all', ({ request }) => {
      queries.record(request);
      const query = new URL(request.url).searchParams;
      const pageSize = Number(query.get('pageSize') ?? 100);
      const cursor = query.get('cursor');
      const all = matching(query);
      const start = cursor ? all.findIndex((e) => `${e.timestamp}_${e.id}` === cursor) + 1 : 0;
      const items = all.slice(start, start + pageSize);
      const last = items[items.length - 1];
      const page: LogsAllPage = {
        items,
        total: all.length,
        totalExact: true,
        page: 1,
        pageSize,
        nextCursor: start + pageSize < all.length && last ? `${last.timestamp}_${last.id}` : null,
      };
      return HttpResponse.json(page);
    }),
    http.get('/logs/size', () =>
      HttpResponse.json(options.size ?? { bytes: 2048, entries: state.entries.length, oldest: null, newest: null }),
    ),
    http.get('/logs/histogram', ({ request }) => {
      const query = new URL(request.url).searchParams;
      const from = query.get('from')!;
      const to = query.get('to')!;
      const bucketMs = Math.ceil((Date.parse(to) - Date.parse(from)) / 2);
      const body: LogsHistogram = {
        from,
        to,
        bucketMs,
        buckets: [
          { start: from, counts: { information: 2 } },
          { start: new Date(Date.parse(from) + bucketMs).toISOString(), counts: { error: 1 } },
        ],
      };
      return HttpResponse.json(body);
    }),
    http.post('/logs/clear', ({ request }) => {
      const query = new URL(request.url).searchParams;
      state.cleared.push(query);
      const instanceId = query.get('instanceId');
      const before = state.entries.length;
      state.entries = state.entries.filter((e) => instanceId && e.instanceId !== instanceId);
      return HttpResponse.json({ removed: before - state.entries.length });
    }),
    http.get('/logs/export', ({ request }) => {
      exports.record(request);
      return new HttpResponse('', { status: 200 });
    }),
  ];
  return { handlers, queries, state };
}
