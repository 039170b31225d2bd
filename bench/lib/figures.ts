import os from 'node:os';

// How the benches summarise and print what they measured, the same way in each.

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile: the smallest value with at least p % of the values at or below it. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Rows as aligned columns: the first (names) to the left, the figures to the right. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const align = (cell: string, column: number) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]));
  return rows.map((row) => row.map(align).join('  ')).join('\n');
}

/** The machine's load averages over 1, 5 and 15 minutes: figures from a busy machine read differently. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' / ');

/** A count with thousands separators. */
export const whole = (n: number) => Math.round(n).toLocaleString('en-US');
