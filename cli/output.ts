/**
 * What commands print: human tables by default, JSON with --json. Machine output goes to stdout and
 * nothing else does in --json mode; notes and progress go to stderr.
 */

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  /** Numbers read better right-aligned. */
  align?: 'left' | 'right';
}

function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  return String(value).replace(/\s+/g, ' ');
}

/**
 * Aligned columns separated by two spaces, a header line first (upper case, unless the headers are
 * names to keep, as a query's columns are); no trailing blanks.
 */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], headers: 'upper' | 'keep' = 'upper'): string {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i].align === 'right' ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => (headers === 'upper' ? c.header.toUpperCase() : c.header))), ...cells.map(line)].join('\n');
}

/** `key: value` lines for one record, keys aligned. */
export function renderFields(fields: readonly [string, string | number | boolean | null | undefined][]): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${cell(v)}`).join('\n');
}

export interface Output {
  json: boolean;
  /** The command's result: JSON on stdout with --json, else `human()` on stdout. */
  result(data: unknown, human: () => string): void;
  /** A remark for a person (stderr), never mixed with machine output. */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
  };
}

/** Bytes as an operator reads them: 1.2 MB, 340 kB. */
export { formatBytes } from '../contracts/backupValues';
