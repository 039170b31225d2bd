import { startCookieSession } from '../../server/auth/sessions';
import { systemClock } from '../../server/clock';
import type { Db } from '../../server/db/schema';
import { createUser } from '../../server/db/users';
import { sessionCookieName } from '../../server/http/sessionCookie';

export type AdminApi = <T>(method: 'GET' | 'POST', url: string, body?: unknown) => Promise<T>;

/**
 * Makes an admin in the bench's store and answers calls to the listening server as that admin, over
 * loopback HTTP with the session cookie and the allowed Origin, as the console makes them.
 */
export async function adminApi(db: Db, baseUrl: string, origin: string): Promise<AdminApi> {
  const admin = await createUser(db, { email: 'admin@bench.local', password: 'Bench-Password-7', role: 'admin' });
  const session = await startCookieSession({ db, clock: systemClock }, admin.id, true, { ip: null, userAgent: null });
  const cookie = `${sessionCookieName}=${session.token}`;
  return async <T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> => {
    const response = await fetch(baseUrl + url, {
      method,
      headers: { cookie, origin, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 400)}`);
    return JSON.parse(text) as T;
  };
}
