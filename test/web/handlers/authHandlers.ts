import { http, HttpResponse } from 'msw';
import type { CurrentUser, LoginFailure } from '../../../contracts/auth';
import { problem } from '../msw';

// Per-domain handler factories (after Grafana's frontend tests): each test states the server it needs.

export const unauthorized = () => problem(401, 'Unauthorized');

/** GET /auth/me answers this user, or 401 for null. */
export const meHandler = (user: CurrentUser | null) =>
  http.get('/auth/me', () => (user ? HttpResponse.json(user) : unauthorized()));

/** GET /auth/check: 200 while the session holds, 401 once it has ended. */
export const sessionCheckHandler = (holds = true) =>
  http.get('/auth/check', () => (holds ? HttpResponse.json({}) : unauthorized()));

/** POST /auth/login refuses with the given reason, or signs in (200, empty body). */
export const loginHandler = (answer: (body: Record<string, unknown>) => LoginFailure | 'ok') =>
  http.post('/auth/login', async ({ request }) => {
    const outcome = answer((await request.json()) as Record<string, unknown>);
    return outcome === 'ok' ? new HttpResponse(null, { status: 200 }) : problem(401, 'Unauthorized', outcome);
  });
