import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { Problem } from '../../contracts/problem';

/** The HTTP status of a failed call, or undefined when it never got an answer. */
export function errorStatus(error: FetchBaseQueryError | SerializedError | undefined): number | undefined {
  if (!error || !('status' in error)) return undefined;
  if (typeof error.status === 'number') return error.status;
  // An answer that was not JSON (a proxy's HTML page, say) still had a status.
  return 'originalStatus' in error ? error.originalStatus : undefined;
}

/** The problem details body of a failed call, when the server sent one. */
export function problemOf(error: FetchBaseQueryError | SerializedError | undefined): Partial<Problem> | undefined {
  if (!error || !('status' in error) || !('data' in error)) return undefined;
  const { data } = error;
  return data && typeof data === 'object' ? (data as Partial<Problem>) : undefined;
}

/** What a person should read about a failed call: the problem's detail or title, else the transport error. */
export function problemText(error: FetchBaseQueryError | SerializedError | undefined): string | undefined {
  if (!error) return undefined;
  const problem = problemOf(error);
  if (problem?.detail || problem?.title) return problem.detail || problem.title;
  if ('error' in error && typeof error.error === 'string') return error.error;
  if ('message' in error) return error.message;
  return undefined;
}
