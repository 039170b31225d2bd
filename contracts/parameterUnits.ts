/**
 * How a parameter's value is written and read across units, the same in the console's review and
 * revisions as in the server's revision log: `64MB` for shared_buffers (counted in 8kB) is `8192 8kB`.
 */

/** A whole number, or a real one, with no unit. */
export const plainInteger = /^[+-]?\d+$/;
export const plainReal = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

const bare = /^[\w.+\-:/]+$/;

/** A value as postgresql.conf takes it: bare when it is a word or a number, else single-quoted with quotes doubled. */
export const quoteValue = (value: string) => (bare.test(value) ? value : `'${value.replace(/'/g, "''")}'`);

// PostgreSQL's units: memory in powers of 1024, time from microseconds to days.
const unitScales: Record<string, { kind: 'memory' | 'time'; scale: number }> = {
  B: { kind: 'memory', scale: 1 },
  kB: { kind: 'memory', scale: 1024 },
  MB: { kind: 'memory', scale: 1024 ** 2 },
  GB: { kind: 'memory', scale: 1024 ** 3 },
  TB: { kind: 'memory', scale: 1024 ** 4 },
  us: { kind: 'time', scale: 0.001 },
  ms: { kind: 'time', scale: 1 },
  s: { kind: 'time', scale: 1000 },
  min: { kind: 'time', scale: 60_000 },
  h: { kind: 'time', scale: 3_600_000 },
  d: { kind: 'time', scale: 86_400_000 },
};

/** A unit as a size: `8kB` is 8 × 1024 bytes. */
function unitSize(unit: string) {
  const match = /^(\d*)\s*([a-zA-Z]+)$/.exec(unit.trim());
  if (!match || !Object.hasOwn(unitScales, match[2])) return null;
  const base = unitScales[match[2]];
  return { kind: base.kind, scale: base.scale * Number(match[1] || 1) };
}

/**
 * A value as counted in the parameter's unit, the unit written after it, so both sides of a change
 * read alike: `64MB` typed for shared_buffers (8kB) is `8192 8kB`. Values without a unit, or in a
 * unit that does not convert, are shown as written.
 */
export function inUnit(value: string, unit: string | null): string {
  const text = value.trim();
  const target = unit ? unitSize(unit) : null;
  if (!unit || !target) return quoteValue(value);
  if (plainInteger.test(text) || plainReal.test(text)) return `${text} ${unit}`;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))\s*([a-zA-Z]+)$/.exec(text);
  const given = match && unitSize(match[2]);
  if (!match || !given || given.kind !== target.kind) return quoteValue(value);
  return `${Number(((Number(match[1]) * given.scale) / target.scale).toFixed(3))} ${unit}`;
}
