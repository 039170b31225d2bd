import { Type, type Static } from 'typebox';
import { logLevels } from './logLevels';
import { maxPage, maxPageSize } from './pageLimits';

export { logLevels, type LogLevel } from './logLevels';

const literals = <const T extends string>(values: readonly T[]) => Type.Enum([...values]);

/** DESIGN §10. `instanceId` is null for the control plane's own entries. */
export const LogEntry = Type.Object({
  id: Type.Integer(),
  timestamp: Type.String(),
  level: literals(logLevels),
  instanceId: Type.Union([Type.String(), Type.Null()]),
  handler: Type.String(),
  message: Type.String(),
  properties: Type.Record(Type.String(), Type.Unknown()),
});
export type LogEntry = Static<typeof LogEntry>;

export const maxLogPageSize = 500;

/**
 * GET /instances/{id}/logs: newest first, paged by cursor (the id of the last entry seen) so a
 * page never shifts while new lines arrive. `levels` is a comma-separated list.
 */
export const LogsQuery = Type.Object(
  {
    levels: Type.Optional(Type.String({ pattern: `^(${logLevels.join('|')})(,(${logLevels.join('|')}))*$`, maxLength: 200 })),
    handler: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    search: Type.Optional(Type.String({ maxLength: 200 })),
    from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
    to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
    /** Entries older than this id (from the previous page's nextCursor). */
    cursor: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLogPageSize, default: 100 })),
  },
  { additionalProperties: false },
);
export type LogsQuery = Static<typeof LogsQuery>;

export const LogsPage = Type.Object({
  items: Type.Array(LogEntry),
  /** Pass as `cursor` for the next (older) page; null at the oldest entry. */
  nextCursor: Type.Union([Type.Integer(), Type.Null()]),
});
export type LogsPage = Static<typeof LogsPage>;

/** LogsAppended (at most every 250 ms per audience): the new entries, oldest first. */
export interface LogsAppendedPayload {
  instanceId: string | null;
  entries: LogEntry[];
  /** Older entries of this batch left out to keep the event small; a client showing them all refetches. */
  skipped: number;
}

// The global log calls (SPEC §7, DESIGN §10): GET /logs/all, /logs/size, /logs/export,
// /logs/histogram and POST /logs/clear, each within the caller's scope.

const levelName = `(${logLevels.join('|')})`;
const instanceFilter = Type.String({ minLength: 1, maxLength: 64, description: "An instance's id, or `none` for the control plane's own entries (admins)" });
const isoTime = Type.String({ format: 'date-time', maxLength: 40 });

/** The filters every /logs call shares. `from` is inclusive, `to` exclusive. */
export const logFilterProperties = {
  level: Type.Optional(Type.String({ pattern: `^${levelName}(,${levelName})*$`, maxLength: 200, description: 'Comma-separated levels' })),
  minLevel: Type.Optional(literals(logLevels)),
  instanceId: Type.Optional(instanceFilter),
  handler: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Words that must all occur in the message or the properties' })),
  from: Type.Optional(isoTime),
  to: Type.Optional(isoTime),
};

/** `<timestamp>_<id>` of the last entry seen: the page after it, however many entries arrived meanwhile. */
export const logCursorPattern = '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z_\\d{1,15}$';

export const LogsAllQuery = Type.Object(
  {
    ...logFilterProperties,
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, default: 1 })),
    // The paging limits of every list (DESIGN §6); the cursor pages on past them.
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPageSize, default: 100 })),
    sort: Type.Optional(Type.Enum(['timestamp', '-timestamp'])),
    cursor: Type.Optional(Type.String({ pattern: logCursorPattern, maxLength: 60 })),
  },
  { additionalProperties: false },
);
export type LogsAllQuery = Static<typeof LogsAllQuery>;

/** Page<LogEntry> plus keyset paging; `total` stops counting past 10,000 (`totalExact` false). */
export const LogsAllPage = Type.Object({
  items: Type.Array(LogEntry),
  total: Type.Integer(),
  totalExact: Type.Boolean(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export type LogsAllPage = Static<typeof LogsAllPage>;

export const LogSize = Type.Object({
  bytes: Type.Integer(),
  entries: Type.Integer(),
  oldest: Type.Union([Type.String(), Type.Null()]),
  newest: Type.Union([Type.String(), Type.Null()]),
});
export type LogSize = Static<typeof LogSize>;

export const logExportFormats = ['ndjson', 'csv'] as const;
export const LogsExportQuery = Type.Object(
  { ...logFilterProperties, sort: Type.Optional(Type.Enum(['timestamp', '-timestamp'])), format: Type.Optional(literals(logExportFormats)) },
  { additionalProperties: false },
);
export type LogsExportQuery = Static<typeof LogsExportQuery>;

export const maxHistogramBuckets = 120;
/** Counts per level over [from, to) (both required), in `buckets` equal slices. */
export const LogsHistogramQuery = Type.Object(
  {
    ...logFilterProperties,
    from: isoTime,
    to: isoTime,
    buckets: Type.Optional(Type.Integer({ minimum: 1, maximum: maxHistogramBuckets, default: 60 })),
  },
  { additionalProperties: false },
);
export type LogsHistogramQuery = Static<typeof LogsHistogramQuery>;

export const LogsHistogram = Type.Object({
  from: Type.String(),
  to: Type.String(),
  bucketMs: Type.Integer(),
  buckets: Type.Array(Type.Object({ start: Type.String(), counts: Type.Record(Type.String(), Type.Integer()) })),
});
export type LogsHistogram = Static<typeof LogsHistogram>;

/**
 * POST /logs/clear: entries of `instanceId` (`none`: the control plane; absent: every entry, admins
 * only) older than `before` (absent: all), optionally of one `level` only.
 */
export const ClearLogsQuery = Type.Object(
  { instanceId: Type.Optional(instanceFilter), before: Type.Optional(isoTime), level: Type.Optional(literals(logLevels)) },
  { additionalProperties: false },
);
export type ClearLogsQuery = Static<typeof ClearLogsQuery>;

export const ClearLogsResponse = Type.Object({ removed: Type.Integer() });
export type ClearLogsResponse = Static<typeof ClearLogsResponse>;
