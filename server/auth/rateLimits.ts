import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from '../http/problems';
import { normalizeEmail } from '../db/users';
import { principalOf } from '../http/auth';

// Limits on /auth beyond the per-account lockout. Per-IP limits are route options (`config.rateLimit`,
// checked when the request arrives); per-account ones need the parsed body, so they are preHandlers.

const minute = 60_000;

/** A route's `config.rateLimit`: `max` calls a minute from one IP address. */
export function perIp(max: number) {
  return { max, timeWindow: minute };
}

/**
 * A preHandler allowing `max` calls a minute from one signed-in user, whatever the address (access
 * rules run on request, so the principal is known by then). Routes given the same preHandler share one count.
 */
export function perUser(app: FastifyInstance, max: number, what: string) {
  const limit = app.createRateLimit({ max, timeWindow: minute, keyGenerator: (request: FastifyRequest) => principalOf(request).userId });
  return async (request: FastifyRequest): Promise<void> => {
    const result = await limit(request);
    if (result.isAllowed || !result.isExceeded) return;
    throw new HttpProblem(429, `You may ${what} at most ${max} times a minute; try again in ${result.ttlInSeconds} seconds.`, {
      headers: { 'retry-after': String(result.ttlInSeconds) },
    });
  };
}

/**
 * A preHandler allowing `max` calls a minute naming one account (the body's e-mail, lower-cased),
 * from whatever addresses; each route keeps its own count.
 */
export function perAccount(app: FastifyInstance, max: number) {
  const limit = app.createRateLimit({
    max,
    timeWindow: minute,
    keyGenerator: (request: FastifyRequest) => normalizeEmail((request.body as { email: string }).email),
  });
  return async (request: FastifyRequest): Promise<void> => {
    const result = await limit(request);
    if (result.isAllowed || !result.isExceeded) return;
    throw new HttpProblem(429, `Too many requests for this account; try again in ${result.ttlInSeconds} seconds.`, {
      headers: { 'retry-after': String(result.ttlInSeconds) },
    });
  };
}
