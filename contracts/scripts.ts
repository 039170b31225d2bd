import { Type, type Static } from 'typebox';
import { PageQuery } from './page';

// Scripts (DESIGN §5 "Script", §10 "Script" and "Script run"): one saved script per instance, run in a
// throwaway sandbox copy of the instance and never on the instance itself.

const literals = <const T extends string>(values: readonly T[]) => Type.Enum([...values]);
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** The bounds of a script and of what a run keeps of its results. */
export const scriptLimits = {
  /** A saved or submitted script, in UTF-8 bytes (more → 413). */
  maxScriptBytes: 1_048_576,
  /** Rows kept of one statement's result; `rowCount` still says how many there were. */
  maxRows: 1000,
  /** Bytes (of the rows as JSON) kept of one statement's result. */
  maxResultBytes: 1_048_576,
  /** Bytes of rows kept of a whole run; later results keep none (`truncated`). */
  maxRunResultBytes: 16 * 1_048_576,
  /** A run's timeout when the request names none: it bounds running the statements (not making the copy). */
  defaultTimeoutMs: 60_000,
  /** The lowest timeout a request may ask for; the ceiling is the server's (WARDEN_SCRIPT_TIMEOUT_MAX). */
  minTimeoutMs: 1000,
  /** Tables the editor's completion schema lists (GET …/script/schema), the first by schema and name. */
  maxSchemaTables: 500,
  /** Columns listed of one table, the first by position. */
  maxSchemaColumns: 200,
} as const;

export const scriptRunStatuses = ['pending', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ScriptRunStatus = (typeof scriptRunStatuses)[number];
/** Terminal statuses: the run holds its final results and the sandbox is gone. */
export const finishedScriptRunStatuses: readonly ScriptRunStatus[] = ['succeeded', 'failed', 'cancelled'];

/**
 * What a run is doing: waiting its turn, copying the source into the sandbox, starting the sandbox,
 * running statement `progress.statement` of `progress.of`, removing the sandbox, done.
 */
export const scriptRunPhases = ['queued', 'preparing', 'starting', 'running', 'cleaning', 'finished'] as const;
export type ScriptRunPhase = (typeof scriptRunPhases)[number];

/**
 * The named sources; any other value is the id of one of the instance's succeeded database backups.
 * 'latest-backup' on an instance with no backup is refused (409), never quietly made empty: 'empty'
 * asks for an empty instance.
 */
export const scriptSources = ['latest-backup', 'live', 'empty'] as const;
/** What the sandbox was actually made from ('live' on an instance that was never initialized gets 'empty'). */
export const scriptCopyKinds = ['backup', 'live', 'empty'] as const;
export type ScriptCopyKind = (typeof scriptCopyKinds)[number];

/** GET/PUT /instances/{id}/script. An instance never saved one answers `{script: '', updatedAt: null, updatedBy: null}`. */
export const Script = Type.Object({
  script: Type.String(),
  updatedAt: nullable(Type.String()),
  updatedBy: nullable(Type.String()),
});
export type Script = Static<typeof Script>;

/** PUT /instances/{id}/script. Size is checked in bytes by the server (413), not by the schema. */
export const SaveScriptRequest = Type.Object({ script: Type.String() }, { additionalProperties: false });
export type SaveScriptRequest = Static<typeof SaveScriptRequest>;

/** POST /instances/{id}/script → 202 ScriptRun. Without `script` the saved script runs. */
export const ScriptRunRequest = Type.Object(
  {
    script: Type.Optional(Type.String()),
    /** 'latest-backup' (default; 409 when the instance has no backup), 'live', 'empty', or a backup id of this instance. */
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Run every statement even after one failed (default: stop at the first error). */
    continueOnError: Type.Optional(Type.Boolean()),
    /** Bounds running the statements (making the copy is not counted); above the server's ceiling → 400. */
    timeoutMs: Type.Optional(Type.Integer({ minimum: scriptLimits.minTimeoutMs, maximum: 86_400_000 })),
  },
  { additionalProperties: false },
);
export type ScriptRunRequest = Static<typeof ScriptRunRequest>;

export const ScriptColumn = Type.Object({
  name: Type.String(),
  /** pg: the type's name (e.g. int4, text, timestamptz); etcd: 'bytes'. */
  type: Type.String(),
});
export type ScriptColumn = Static<typeof ScriptColumn>;

export const ScriptNotice = Type.Object({
  /** NOTICE, WARNING, INFO … as the server said it. */
  severity: Type.String(),
  message: Type.String(),
  code: Type.Optional(Type.String()),
});
export type ScriptNotice = Static<typeof ScriptNotice>;

export const ScriptError = Type.Object({
  message: Type.String(),
  /** pg: the SQLSTATE (e.g. 42P01). */
  code: Type.Optional(Type.String()),
  /** 1-based character offset within the statement. */
  position: Type.Optional(Type.Integer()),
  /** 1-based line within the script where the error points (the statement's line when no position is known). */
  line: Type.Optional(Type.Integer()),
  detail: Type.Optional(Type.String()),
  hint: Type.Optional(Type.String()),
});
export type ScriptError = Static<typeof ScriptError>;

/** One statement (pg) or command line (etcd) and what it did. */
export const ScriptResult = Type.Object({
  statement: Type.String(),
  /** 1-based line of the script where the statement starts (its first non-blank character). */
  line: Type.Integer(),
  durationMs: Type.Number(),
  columns: Type.Optional(Type.Array(ScriptColumn)),
  /** Cells as text (pg's text format, so big numbers stay exact), null for SQL NULL; at most maxRows rows and maxResultBytes. */
  rows: Type.Optional(Type.Array(Type.Array(nullable(Type.String())))),
  /** Rows returned (all of them, also when `rows` was truncated) or rows affected. */
  rowCount: Type.Optional(nullable(Type.Integer())),
  truncated: Type.Optional(Type.Boolean()),
  /** pg: the command tag (SELECT, INSERT, CREATE TABLE …); etcd: PUT, GET, DEL. */
  command: Type.Optional(Type.String()),
  notices: Type.Optional(Type.Array(ScriptNotice)),
  /** etcd: what etcdctl would have printed (OK, the deleted count …). */
  output: Type.Optional(Type.String()),
  error: Type.Optional(ScriptError),
});
export type ScriptResult = Static<typeof ScriptResult>;

/** pg: a user table's exact row count in the sandbox before and after the script (0 for one it created or dropped). */
export const ScriptChange = Type.Object({
  /** schema.table */
  table: Type.String(),
  before: Type.Integer(),
  after: Type.Integer(),
});
export type ScriptChange = Static<typeof ScriptChange>;

export const ScriptRunProgress = Type.Object({ statement: Type.Integer(), of: Type.Integer() });
export type ScriptRunProgress = Static<typeof ScriptRunProgress>;

/** A run as listed in the history and pushed while it runs (ScriptRunUpdated). */
export const ScriptRunSummary = Type.Object({
  id: Type.String(),
  instanceId: Type.String(),
  status: literals(scriptRunStatuses),
  phase: literals(scriptRunPhases),
  /** As requested: 'latest-backup', 'live', 'empty' or a backup id. */
  source: Type.String(),
  /** What the sandbox was made from, once known. */
  copiedFrom: nullable(literals(scriptCopyKinds)),
  /** The backup the sandbox was restored from, if any. */
  backupId: nullable(Type.String()),
  progress: Type.Optional(ScriptRunProgress),
  startedAt: Type.String(),
  finishedAt: nullable(Type.String()),
  durationMs: nullable(Type.Integer()),
  /** Null until the run has finished; true when every statement succeeded. */
  ok: nullable(Type.Boolean()),
  createdBy: nullable(Type.String()),
  /** Statements in the script. */
  statements: Type.Integer(),
  /** Statements that failed. */
  failures: Type.Integer(),
  /** Why the run as a whole failed or was cancelled (timeout, sandbox could not start …), else absent. */
  error: Type.Optional(Type.String()),
});
export type ScriptRunSummary = Static<typeof ScriptRunSummary>;

/** DESIGN §10 ScriptRun: the summary plus the script that ran and every result. */
export const ScriptRun = Type.Object({
  ...ScriptRunSummary.properties,
  script: Type.String(),
  continueOnError: Type.Boolean(),
  timeoutMs: Type.Integer(),
  results: Type.Array(ScriptResult),
  /** pg only. */
  changes: Type.Optional(Type.Array(ScriptChange)),
});
export type ScriptRun = Static<typeof ScriptRun>;

/**
 * GET /instances/{id}/script/schema: the user tables and views of a running pg instance's default
 * database with their columns, for the editor's completion (at most maxSchemaTables × maxSchemaColumns).
 * etcd and an instance that is not running answer no tables; one that could not be read says why.
 */
export const ScriptSchema = Type.Object({
  tables: Type.Array(Type.Object({ schema: Type.String(), name: Type.String(), columns: Type.Array(ScriptColumn) })),
  readAt: Type.String(),
  /** Why a running pg instance's tables could not be read (it did not answer, or not in time). */
  unreadable: Type.Optional(Type.String()),
});
export type ScriptSchema = Static<typeof ScriptSchema>;

/** GET /instances/{id}/script/runs: newest first (no other order, no search). */
export const ScriptRunsQuery = Type.Object(
  { page: PageQuery.properties.page, pageSize: PageQuery.properties.pageSize, status: Type.Optional(literals(scriptRunStatuses)) },
  { additionalProperties: false },
);
export type ScriptRunsQuery = Static<typeof ScriptRunsQuery>;

export const ScriptRunsPage = Type.Object({
  items: Type.Array(ScriptRunSummary),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
});
export type ScriptRunsPage = Static<typeof ScriptRunsPage>;

// ---- Hub payloads (DESIGN §8) ----

/**
 * ScriptRunUpdated, to the instance's viewers (JoinInstance(id)): a run started, changed phase, moved
 * to the next statement or finished. Fetch GET …/script/runs/{id} for the results once it is finished.
 */
export interface ScriptRunUpdatedPayload {
  run: ScriptRunSummary;
}
