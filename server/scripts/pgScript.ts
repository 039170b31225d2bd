import { Client, DatabaseError, Query, type QueryArrayConfig, type QueryConfig } from 'pg';
import { pgDefaultDatabase, pgOwnerRole } from '../../contracts/databases';
import type { ScriptColumn, ScriptError, ScriptNotice, ScriptResult } from '../../contracts/scripts';
import type { InstanceRuntime } from '../engines/engine';
import { pgSocketDir } from '../engines/pg';
import { pgOwnerPassword } from '../engines/pgRoles';
import { RowBudget } from './resultLimits';
import type { SqlStatement } from './sqlSplitter';

/** Every value as the server's text, so numbers, dates and arrays arrive exactly as PostgreSQL writes them. */
const textTypes = { getTypeParser: () => (value: string) => value };

interface CommandComplete {
  text: string;
}
type CompleteHandler = (this: Query, msg: CommandComplete, connection: unknown) => void;

/** A query that streams its rows to a listener (pg then keeps none) and keeps the full command tag. */
class StatementQuery extends Query {
  tag = '';

  handleCommandComplete(msg: CommandComplete, connection: unknown) {
    this.tag = msg.text;
    (Query.prototype as unknown as { handleCommandComplete: CompleteHandler }).handleCommandComplete.call(this, msg, connection);
  }
}

interface RowDescription {
  fields: { name: string; dataTypeID: number }[];
}

export interface PgScriptOptions {
  continueOnError: boolean;
  /** The server-side statement_timeout of the session. */
  timeoutMs: number;
  /** Told before each statement runs (0-based). */
  onStatement: (index: number) => void;
  /** Aborted on cancel or timeout: the running statement is cancelled and no further one runs. */
  signal: AbortSignal;
  /** Cancels the statement of this backend (pg_cancel_backend, as the sandbox's superuser). */
  cancelBackend: (pid: number) => Promise<void>;
}

/**
 * Runs statements one by one in one session of the sandbox's owner role (never the superuser:
 * a script has exactly the rights people have on the instance), collecting what each one did.
 */
export async function runPgStatements(rt: InstanceRuntime, statements: SqlStatement[], options: PgScriptOptions): Promise<ScriptResult[]> {
  const client = new Client({
    host: pgSocketDir(rt),
    port: rt.port,
    user: pgOwnerRole,
    database: pgDefaultDatabase,
    password: pgOwnerPassword(rt) ?? '',
    connectionTimeoutMillis: 10_000,
    application_name: 'warden-script',
    options: `-c statement_timeout=${Math.max(1, Math.floor(options.timeoutMs))}`,
  });
  client.on('error', () => undefined);
  await client.connect();
  const results: ScriptResult[] = [];
  let notices: ScriptNotice[] = [];
  client.on('notice', (notice) => notices.push({ severity: notice.severity ?? 'NOTICE', message: notice.message ?? '', ...(notice.code && { code: notice.code }) }));
  const typeNames = new Map<number, string>();
  const budget = new RowBudget();
  try {
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    // Again every second until the statements stop: a cancel that arrives between two statements
    // reaches no query, and the next one must not run on until statement_timeout.
    let repeat: NodeJS.Timeout | null = null;
    const cancel = () => {
      void options.cancelBackend(pid).catch(() => undefined);
      repeat ??= setInterval(cancel, 1000);
    };
    options.signal.addEventListener('abort', cancel, { once: true });
    try {
      for (const [index, statement] of statements.entries()) {
        if (options.signal.aborted) break;
        options.onStatement(index);
        notices = [];
        const result = await runOne(client, statement, budget);
        if (result.columns) await nameTypes(client, result.columns, typeNames);
        results.push({ ...result, ...(notices.length > 0 && { notices }) });
        if (result.error && !options.continueOnError) break;
      }
    } finally {
      options.signal.removeEventListener('abort', cancel);
      if (repeat) clearInterval(repeat);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
  return results;
}

type Pending = Omit<ScriptResult, 'columns'> & { columns?: (ScriptColumn & { oid?: number })[] };

async function runOne(client: Client, statement: SqlStatement, budget: RowBudget): Promise<Pending> {
  const rows = budget.statement();
  // rowMode is honoured by Query though its typings only declare it for client.query.
  const config: QueryArrayConfig = { text: statement.text, rowMode: 'array', types: textTypes };
  const query = new StatementQuery(config as QueryConfig);
  let columns: { name: string; oid: number }[] | undefined;
  query.on('row', (row: (string | null)[]) => rows.add(row));
  // The field list arrives before the rows; the listener above keeps pg from accumulating them.
  const describe = (query as unknown as { handleRowDescription: (msg: RowDescription) => void }).handleRowDescription.bind(query);
  (query as unknown as { handleRowDescription: (msg: RowDescription) => void }).handleRowDescription = (msg) => {
    columns = msg.fields.map((f) => ({ name: f.name, oid: f.dataTypeID }));
    describe(msg);
  };
  const started = performance.now();
  const base = { statement: statement.text, line: statement.line };
  try {
    const result = await new Promise<{ rowCount: number | null }>((resolve, reject) => {
      query.on('end', (r) => resolve({ rowCount: r.rowCount }));
      query.on('error', reject);
      void client.query(query);
    });
    const durationMs = performance.now() - started;
    const command = query.tag.replace(/( \d+)+$/, '') || undefined;
    if (columns) {
      const kept = rows.result();
      return { ...base, durationMs, command, columns: columns.map((c) => ({ name: c.name, type: '', oid: c.oid })), ...kept };
    }
    return { ...base, durationMs, command, rowCount: result.rowCount };
  } catch (error) {
    return { ...base, durationMs: performance.now() - started, error: scriptError(error, statement) };
  }
}

/** The server's error, with its position mapped onto the script's lines. */
function scriptError(error: unknown, statement: SqlStatement): ScriptError {
  if (!(error instanceof DatabaseError)) return { message: error instanceof Error ? error.message : String(error), line: statement.line };
  const position = error.position ? Number(error.position) : undefined;
  const before = position ? Array.from(statement.text).slice(0, position - 1).join('') : '';
  return {
    message: error.message,
    ...(error.code && { code: error.code }),
    ...(position && { position }),
    line: statement.line + (before.match(/\n/g)?.length ?? 0),
    ...(error.detail && { detail: error.detail }),
    ...(error.hint && { hint: error.hint }),
  };
}

/** Fills in the columns' type names, asking the server only for types not seen before in this session. */
async function nameTypes(client: Client, columns: (ScriptColumn & { oid?: number })[], known: Map<number, string>) {
  const unknown = [...new Set(columns.map((c) => c.oid!).filter((oid) => !known.has(oid)))];
  if (unknown.length > 0) {
    try {
      const { rows } = await client.query<{ oid: number; name: string }>(
        'select oid::int as oid, typname::text as name from pg_catalog.pg_type where oid = any($1::oid[])',
        [unknown],
      );
      for (const row of rows) known.set(row.oid, row.name);
    } catch {
      // Inside a transaction the script left failing: the names stay unknown.
    }
  }
  for (const column of columns) {
    column.type = known.get(column.oid!) ?? String(column.oid);
    delete column.oid;
  }
}
