import { HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { Problem } from '../../contracts/problem';
import { ambientStatisticsHandlers } from './handlers/statisticsHandlers';

/**
 * An msw server for one test file: started before, reset after each test, closed at the end.
 * An unhandled request fails the test, so every call a screen makes is one the test expected
 * (the figures beside a screen's data answer quietly unless a test replaces them).
 */
export function setupMsw() {
  // Kept through resetHandlers: the figures most screens show beside their own data.
  const server = setupServer(...ambientStatisticsHandlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** An RFC 9457 answer as the server sends it. */
export function problem(status: number, title: string, detail?: string) {
  const body: Problem = { type: 'about:blank', title, status, ...(detail !== undefined && { detail }) };
  return HttpResponse.json(body, { status, headers: { 'Content-Type': 'application/problem+json' } });
}
