import { http, HttpResponse } from 'msw';
import type { GraphPoint, GraphsResponse } from '../../../contracts/instances';
import { requestLog } from './pages';

/** A point with its total; `cumulative` is what the test says it is. */
export const aPoint = (bucket: string, pg: number, etcd: number, cumulative: number): GraphPoint => ({
  bucket,
  pg,
  etcd,
  total: pg + etcd,
  cumulative,
});

/** GET /instances/graphs: answers `points` for whatever range is asked, and logs each query. */
export function graphsHandler(points: GraphPoint[] | ((query: URLSearchParams) => Response)) {
  const log = requestLog();
  const handler = http.get('/instances/graphs', ({ request }) => {
    log.record(request);
    const query = new URL(request.url).searchParams;
    if (typeof points === 'function') return points(query);
    const body: GraphsResponse = {
      bucket: (query.get('bucket') ?? 'day') as GraphsResponse['bucket'],
      from: query.get('from')!,
      to: query.get('to')!,
      points,
    };
    return HttpResponse.json(body);
  });
  return { handler, ...log };
}
