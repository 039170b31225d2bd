import type { LogLevel } from '../../contracts/logs';

/** One log line of an engine, turned into Warden's log entry fields. */
export interface ParsedLogLine {
  timestamp: string;
  level: LogLevel;
  message: string;
  properties: Record<string, unknown>;
}

// The one place that maps engine log levels (DESIGN §5).

/**
 * PostgreSQL's jsonlog writes "DEBUG" for every debug level, so whether a debug line is verbose
 * depends on how deep the instance logs: at log_min_messages debug2–debug5 it is verbose.
 */
export function pgLevel(severity: string, logMinMessages = 'warning'): LogLevel {
  switch (severity.toUpperCase()) {
    case 'DEBUG':
    case 'DEBUG1':
      return /^debug[2-5]$/i.test(logMinMessages) ? 'verbose' : 'debug';
    case 'DEBUG2':
    case 'DEBUG3':
    case 'DEBUG4':
    case 'DEBUG5':
      return 'verbose';
    case 'LOG':
    case 'INFO':
    case 'NOTICE':
    case 'STATEMENT':
    case 'DETAIL':
    case 'HINT':
    case 'CONTEXT':
      return 'information';
    case 'WARNING':
      return 'warning';
    case 'ERROR':
      return 'error';
    case 'FATAL':
    case 'PANIC':
      return 'fatal';
    default:
      return 'information';
  }
}

export function etcdLevel(level: string): LogLevel {
  switch (level.toLowerCase()) {
    case 'debug':
      return 'debug';
    case 'info':
      return 'information';
    case 'warn':
      return 'warning';
    case 'error':
      return 'error';
    case 'dpanic':
    case 'panic':
    case 'fatal':
      return 'fatal';
    default:
      return 'information';
  }
}

function parseJson(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const value = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** A PostgreSQL jsonlog line (logging_collector, log_destination 'jsonlog'); null for anything else. */
export function parsePgJsonLine(line: string, logMinMessages?: string): ParsedLogLine | null {
  const record = parseJson(line);
  if (!record || typeof record.message !== 'string' || typeof record.error_severity !== 'string') return null;
  const { timestamp, error_severity: severity, message, ...properties } = record;
  // jsonlog timestamps read "2026-11-22 04:41:58.123 UTC".
  const at = typeof timestamp === 'string' ? new Date(timestamp.replace(' ', 'T').replace(' UTC', 'Z')) : new Date(NaN);
  return {
    timestamp: Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString(),
    level: pgLevel(severity, logMinMessages),
    message,
    properties: { severity, ...properties },
  };
}

/** An etcd zap JSON line (--logger zap); null for anything else. */
export function parseEtcdZapLine(line: string): ParsedLogLine | null {
  const record = parseJson(line);
  if (!record || typeof record.msg !== 'string' || typeof record.level !== 'string') return null;
  const { level, ts, msg, ...properties } = record;
  const at = typeof ts === 'string' ? new Date(ts) : typeof ts === 'number' ? new Date(ts * 1000) : new Date(NaN);
  return {
    timestamp: Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString(),
    level: etcdLevel(level),
    message: msg,
    properties,
  };
}
