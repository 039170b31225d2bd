import { HttpResponse } from 'msw';
import type { PageOf } from '../../../contracts/page';
import type { Problem } from '../../../contracts/problem';

/** One page of a list as the API answers it. */
export function pageOf<T>(items: T[], { page = 1, pageSize = 25, total = items.length } = {}): PageOf<T> {
  return { items, total, page, pageSize };
}

/** A 400 validation problem with `errors` keyed by field or Identity error code, as the server sends it. */
export function validationProblem(errors: Record<string, string[]>) {
  const body: Problem = { type: 'about:blank', title: 'One or more validation errors occurred.', status: 400, errors };
  return HttpResponse.json(body, { status: 400, headers: { 'Content-Type': 'application/problem+json' } });
}

/** The query of every request a handler saw, in order: tests assert what the screen asked for. */
export function requestLog() {
  const seen: URLSearchParams[] = [];
  return {
    seen,
    record: (request: Request) => seen.push(new URL(request.url).searchParams),
    /** The last query as a plain object. */
    last: () => Object.fromEntries(seen.at(-1) ?? []),
  };
}
