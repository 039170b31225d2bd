// Checking a proposed parameter value against its metadata and the host, and writing it the way
// the engine reads it back (DESIGN §11: "checked by type and bounds … quoted the way the engine reads it").
import os from 'node:os';
import type { ConfigParameter } from './engine';

/** Longest string value accepted; PostgreSQL's own string settings are short (names, lists, formats). */
export const maxStringValue = 1024;

// Maps, not objects: a unit is looked up by what the caller wrote, and `1constructor` names no unit.
const memoryUnits: ReadonlyMap<string, number> = new Map([['B', 1], ['kB', 1024], ['MB', 1024 ** 2], ['GB', 1024 ** 3], ['TB', 1024 ** 4]]);
const timeUnits: ReadonlyMap<string, number> = new Map([['us', 0.001], ['ms', 1], ['s', 1000], ['min', 60_000], ['h', 3_600_000], ['d', 86_400_000]]);

/** A pg_settings unit ('8kB', 'MB', 'ms', 's' …) as its family and size in bytes or milliseconds. */
function unitSize(unit: string | null): { family: 'memory' | 'time'; size: number } | null {
  if (!unit) return null;
  const match = /^(\d*)(\w+)$/.exec(unit);
  if (!match) return null;
  const factor = match[1] ? Number(match[1]) : 1;
  const memory = memoryUnits.get(match[2]);
  if (memory !== undefined) return { family: 'memory', size: factor * memory };
  const time = timeUnits.get(match[2]);
  if (time !== undefined) return { family: 'time', size: factor * time };
  return null;
}

export interface HostFacts {
  /** Physical memory in bytes. */
  memoryBytes: number;
}

export const thisHost = (): HostFacts => ({ memoryBytes: os.totalmem() });

/** Memory one connection may take at the least, to bound max_connections by the host's RAM. */
const bytesPerConnection = 10 * 1024 ** 2;

/** Limits from the host: memory a parameter may claim, or a count, in the parameter's own unit. */
function hostLimit(name: string, host: HostFacts): { max: number; why: string; bytes: boolean } | null {
  const ram = host.memoryBytes;
  switch (name) {
    case 'shared_buffers':
      return { max: ram / 2, why: 'half of the host\'s memory', bytes: true };
    case 'work_mem':
    case 'maintenance_work_mem':
    case 'autovacuum_work_mem':
    case 'logical_decoding_work_mem':
    case 'temp_buffers':
    case 'wal_buffers':
      return { max: ram / 4, why: 'a quarter of the host\'s memory', bytes: true };
    case 'max_connections':
      return { max: Math.min(10_000, Math.floor(ram / bytesPerConnection)), why: `what the host's memory allows (${Math.floor(ram / bytesPerConnection)})`, bytes: false };
    default:
      return null;
  }
}

const formatBytes = (bytes: number) => {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${Math.floor(value)}${units[i]}`;
};

export interface CheckOptions {
  /** Whether values may carry a unit (PostgreSQL: 128MB, 5min); etcd takes plain numbers. */
  units: boolean;
  host: HostFacts;
}

/**
 * Checks one proposed value against its metadata: type, unit, bounds, the host's limits, and no
 * control characters (a newline would end the line in the engine's configuration file).
 */
export function checkValue(parameter: ConfigParameter | undefined, name: string, value: string, options: CheckOptions): string | null {
  if (!parameter) return `Unknown parameter ${name}.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return `${name} may not contain control characters (such as a newline).`;
  if (value.length > maxStringValue) return `${name} may be at most ${maxStringValue} characters long.`;
  switch (parameter.type) {
    case 'bool':
      return /^(on|off|true|false|yes|no|1|0)$/i.test(value) ? null : `${name} must be on or off.`;
    case 'integer':
    case 'real':
      return checkNumber(parameter, name, value.trim(), options);
    case 'enum':
      return parameter.enumValues?.some((v) => v.toLowerCase() === value.toLowerCase()) ? null : `${name} must be one of ${parameter.enumValues?.join(', ')}.`;
    default:
      return null;
  }
}

/**
 * A number as PostgreSQL reads it for a parameter counted in `unit`: a unit given with it is
 * converted to that unit and rounded; answers why not when it is no such number.
 */
export function amountOf(name: string, value: string, unit: string | null, options: { units: boolean; integer: boolean }): number | { problem: string } {
  const match = /^(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(value.trim());
  const inUnit = unit ? ` (in ${unit})` : '';
  if (!match) return { problem: `${name} must be a number${inUnit}.` };
  const number = Number(match[1]);
  const suffix = match[2];
  if (!suffix) return options.integer && match[1].includes('.') ? { problem: `${name} must be a whole number.` } : number;
  const own = unitSize(unit);
  if (!options.units || !own) return { problem: `${name} takes a plain number${inUnit}.` };
  const given = (own.family === 'memory' ? memoryUnits : timeUnits).get(suffix);
  if (given === undefined) {
    return { problem: `${name} takes ${own.family === 'memory' ? 'a memory unit (B, kB, MB, GB, TB)' : 'a time unit (us, ms, s, min, h, d)'}, not ${suffix}.` };
  }
  return Math.round((number * given) / own.size);
}

function checkNumber(parameter: ConfigParameter, name: string, value: string, options: CheckOptions): string | null {
  const number = amountOf(name, value, parameter.unit, { units: options.units, integer: parameter.type === 'integer' });
  if (typeof number !== 'number') return number.problem;
  if (parameter.min !== null && number < parameter.min) return `${name} must be at least ${parameter.min}${parameter.unit ? ` ${parameter.unit}` : ''}.`;
  if (parameter.max !== null && number > parameter.max) return `${name} must be at most ${parameter.max}${parameter.unit ? ` ${parameter.unit}` : ''}.`;
  const limit = hostLimit(name, options.host);
  if (limit && number >= 0) {
    const own = unitSize(parameter.unit);
    const amount = limit.bytes && own?.family === 'memory' ? number * own.size : number;
    if (amount > limit.max) return `${name} may be at most ${limit.bytes ? formatBytes(limit.max) : limit.max}: ${limit.why}.`;
  }
  return null;
}

/** A value as ALTER SYSTEM writes it into postgresql.auto.conf: single-quoted, with ' and \ doubled. */
export function confQuote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The inverse of confQuote, as PostgreSQL's configuration parser reads a quoted value. */
export function confUnquote(quoted: string): string {
  const escapes = new Map([['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t']]);
  return quoted.replace(/''|\\(.)/g, (_match, c: string | undefined) => (c === undefined ? "'" : (escapes.get(c) ?? c)));
}

/** Values the engine refused while saving them, per parameter; nothing of the change was saved. */
export class ParametersRefused extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(Object.values(errors).flat().join(' '));
  }
}
