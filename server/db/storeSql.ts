import { sql, type Expression, type RawBuilder } from 'kysely';
import { isPostgres } from './postgresStore';

/*
 * SQL that the two stores spell differently, one function each with both forms side by side
 * (DESIGN §12). The log store's full-text search has its own module (logSearch.ts).
 */

type Store = Parameters<typeof isPostgres>[0];

/** The larger of two numbers: SQLite's two-argument max(), PostgreSQL's greatest(). */
export function larger(db: Store, a: Expression<number>, b: Expression<number>): RawBuilder<number> {
  return isPostgres(db) ? sql<number>`greatest(${a}, ${b})` : sql<number>`max(${a}, ${b})`;
}
