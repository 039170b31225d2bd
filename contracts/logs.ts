import { Type, type Static } from 'typebox';
import { logLevels } from './logLevels';

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
