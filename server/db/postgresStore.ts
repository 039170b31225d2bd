import {
  ColumnDefinitionNode,
  DataTypeNode,
  Kysely,
  OperationNodeTransformer,
  PostgresAdapter,
  PostgresDialect,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PostgresPool,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import type { Database, Db } from './schema';

/*
 * The store on PostgreSQL (WARDEN_DATABASE_URL=postgres://…), for several Warden servers sharing
 * one store (DESIGN §12). The tables and queries are the embedded store's: Kysely writes both
 * dialects. What differs lives here and in the one small module per feature that needs it
 * (logSearch.ts, storeSql.ts).
 */

/** The connections one server keeps at most, unless WARDEN_DATABASE_POOL says otherwise. */
export const defaultPoolSize = 10;

/** Whether a store runs on PostgreSQL rather than the embedded SQLite. */
export const isPostgres = (db: { getExecutor(): { readonly adapter: unknown } }): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The store's columns are SQLite's: `integer` there is 64 bits wide, and `integer primary key
 * autoincrement` the row's id. On PostgreSQL both become `bigint`, the second an identity column,
 * so every migration runs unchanged on either store.
 */
class WideIntegers extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const column = super.transformColumnDefinition(node);
    if (!DataTypeNode.is(column.dataType) || column.dataType.dataType !== 'integer') return column;
    if (column.autoIncrement) return { ...column, dataType: DataTypeNode.create('bigserial'), autoIncrement: false };
    return { ...column, dataType: DataTypeNode.create('bigint') };
  }
}

const wideIntegers: KyselyPlugin = {
  transformQuery: ({ node }: PluginTransformQueryArgs): RootOperationNode => new WideIntegers().transformNode(node),
  transformResult: async ({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => result,
};

// Counts, sums and bigint columns arrive as strings from pg; the store's numbers all fit a double
// (ids, bytes, milliseconds), so they are read as numbers, as SQLite gives them.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** Codes of a store that cannot be reached or went away: node's socket errors and SQLSTATE's. */
const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
/** What pg says, without a code, of a connection lost or never made. */
const unreachableMessages = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * Whether an error (or one it was caused by) says the store is out of reach: its server down or
 * restarting, the connection cut, no connection free in time. Such an error is no fault of the
 * request, and the same request may well succeed a few seconds later.
 */
export function isStoreUnreachable(error: unknown): boolean {
  for (let depth = 0; depth < 5 && typeof error === 'object' && error !== null; depth++) {
    const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (unreachableCodes.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && unreachableMessages.test(message)) return true;
    error = cause;
  }
  return false;
}

/**
 * Statement names by SQL text, for every connection of the process: the store's queries are few
 * texts run again and again, and a named statement is parsed and planned once per connection
 * instead of at every run (a quarter of a simple request's time on the store). Bounded: texts past
 * the bound (lists of varying length) run unnamed, as all did before.
 */
const statementNames = new Map<string, string | null>();
const maxNamedStatements = 2_000;
const namedKinds = /^(select|insert|update|delete|with) /i;
/** PostgreSQL's answer to a named statement whose tables changed shape since it was planned. */
const stalePlan = /cached plan must not change result type/;

function statementName(text: string): string | null {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = statementNames.size < maxNamedStatements && namedKinds.test(text) ? `warden_${statementNames.size}` : null;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Makes the client run the store's queries (text and values, as Kysely sends them) as named
 * statements. One whose plan went stale (a migration by another server changed a table) is run
 * again unnamed, and its text is not named again: the failure comes before the statement runs.
 */
function preparing(client: pg.PoolClient) {
  const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<pg.QueryResult>;
  const named = (text: unknown, values?: unknown) => {
    const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : null;
    if (name === null) return query(text, values);
    return query({ name, text, values }).catch((error: unknown) => {
      if (!(error instanceof Error) || !stalePlan.test(error.message)) throw error;
      statementNames.set(text as string, null);
      return query(text, values);
    });
  };
  (client as { query: unknown }).query = named;
}

/** How long a new connection is retried while the store is out of reach, before the query fails. */
const connectRetryMs = 2_000;

/**
 * The pool as Kysely sees it, with a new connection retried while the store is out of reach (a
 * restart takes a second or two): a request then waits briefly rather than failing. A query that
 * fails on a connection already made is never retried here; it may have been applied.
 */
function retryingPool(pool: pg.Pool): PostgresPool {
  const watched = new WeakSet<pg.PoolClient>();
  return {
    async connect() {
      const deadline = Date.now() + connectRetryMs;
      for (let wait = 50; ; wait = Math.min(wait * 2, 400)) {
        try {
          const client = await pool.connect();
          // A connection the server ends while Kysely holds it (between a transaction's queries)
          // says so as an event: with no listener that would end the process. Its next query fails
          // instead, and the pool drops it when it is released.
          if (!watched.has(client)) {
            watched.add(client);
            client.on('error', () => {});
            preparing(client);
          }
          return client;
        } catch (error) {
          if (!isStoreUnreachable(error) || Date.now() + wait > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    },
    end: () => pool.end(),
  };
}

/** A pool of at most `poolSize` connections to the store's database, and Kysely over it. */
export function openPostgresStore(url: string, poolSize = defaultPoolSize): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types,
    // A store that does not answer is reported, not waited on forever.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'warden',
  });
  // A connection the server ends while idle in the pool (a restart of the store) is dropped from
  // it; the next query opens another. Without a listener the error would end the process.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: retryingPool(pool) }), plugins: [wideIntegers] });
}
