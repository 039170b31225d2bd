import { sql } from 'kysely';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RouteOptions } from 'fastify';
import type { Db } from '../db/schema';

/*
 * Rate limits counted in the store, for servers sharing one: a client spreading its calls over
 * several servers meets the same limit as on one. Each count is one upsert, which starts a new
 * window once the last one has passed. (One server alone counts in memory, as before.)
 */

/** Every this many counts, rows of windows long gone are deleted. */
const sweepEvery = 1_000;
/** A window's row outlives it by this much before a sweep deletes it. */
const keepMs = 3_600_000;

/** The plugin's store class over `db`; each route (and each createRateLimit) counts under its own prefix. */
export function sharedRateLimitStore(db: Db): FastifyRateLimitStoreCtor {
  let counted = 0;
  let children = 0;

  async function count(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    const now = Date.now();
    const passed = sql<boolean>`rate_limits.window_start + ${windowMs} <= ${now}`;
    const row = await db
      .insertInto('rate_limits')
      .values({ key, hits: 1, window_start: now })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          hits: sql<number>`case when ${passed} then 1 else rate_limits.hits + 1 end`,
          window_start: sql<number>`case when ${passed} then ${now} else rate_limits.window_start end`,
        }),
      )
      .returning(['hits', 'window_start'])
      .executeTakeFirstOrThrow();
    if (++counted % sweepEvery === 0) await db.deleteFrom('rate_limits').where('window_start', '<', now - keepMs).execute();
    return { current: Number(row.hits), ttl: Math.max(0, Number(row.window_start) + windowMs - now) };
  }

  class SharedRateLimits implements FastifyRateLimitStore {
    constructor(
      _options: FastifyRateLimitOptions,
      private readonly prefix = 'global',
    ) {}

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      count(`${this.prefix}:${key}`, timeWindow).then(
        (result) => callback(null, result),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(routeOptions: RouteOptions & { path: string; prefix: string }): FastifyRateLimitStore {
      // A route's limit counts under its method and address; one made by createRateLimit (no route)
      // under its place in the order they are made, the same on every server of one build.
      const info = (routeOptions as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo;
      const prefix = info?.url ? `${String(info.method)} ${info.url}` : `limit-${++children}`;
      return new SharedRateLimits(routeOptions as FastifyRateLimitOptions, prefix);
    }
  }
  return SharedRateLimits;
}
