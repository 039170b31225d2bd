import { sql, type RawBuilder } from 'kysely';
import { defaultPageSize, type PageOf } from '../../contracts/page';

// The one paging shape (DESIGN §6): repositories take a window and a sort key, answer a PageOf.

export interface PageWindow {
  page: number;
  pageSize: number;
}

/** The window a list query asks for; defaults as in contracts/page.ts. */
export function pageWindow(query: { page?: number; pageSize?: number }): PageWindow {
  return { page: query.page ?? 1, pageSize: query.pageSize ?? defaultPageSize };
}

export function offsetOf(window: PageWindow): number {
  return (window.page - 1) * window.pageSize;
}

/**
 * The list's total when the page itself tells it: a page that is not full is the last one, so the
 * total is the rows before it plus its own (an empty page past the first says nothing). Saves the
 * count query, which reads every matching row, for every short list.
 */
export function knownTotal(window: PageWindow, rowsOnPage: number): number | undefined {
  if (rowsOnPage >= window.pageSize) return undefined;
  if (rowsOnPage === 0 && window.page > 1) return undefined;
  return offsetOf(window) + rowsOnPage;
}

export function pageOf<T>(window: PageWindow, total: number | string | bigint, items: T[]): PageOf<T> {
  return { items, total: Number(total), page: window.page, pageSize: window.pageSize };
}

/** `field` sorts ascending, `-field` descending. */
export type SortKey<F extends string> = F | `-${F}`;

/** Every sort key of these fields, for a route's `sort` enum: ['email', '-email', …]. */
export function sortKeys<const F extends string>(fields: readonly F[]): SortKey<F>[] {
  return fields.flatMap((field) => [field, `-${field}` as const]);
}

export function parseSort<F extends string>(key: SortKey<F>): { field: F; direction: 'asc' | 'desc' } {
  return key.startsWith('-') ? { field: key.slice(1) as F, direction: 'desc' } : { field: key as F, direction: 'asc' };
}

/** Escapes LIKE's wildcards (and the escape character) so the text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `column LIKE pattern` with backslash as the escape character on both dialects. */
export function like(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}

/**
 * Whether the column contains the text literally. The caller lower-cases both the column's content
 * and the text: LIKE is case-insensitive on SQLite but not on PostgreSQL.
 */
export function contains(column: string, text: string): RawBuilder<boolean> {
  return like(column, `%${escapeLike(text)}%`);
}

/** Whether the column contains the text, in any case: both lower-cased, as LIKE ignores case on SQLite but not on PostgreSQL. */
export function containsAnyCase(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`;
}
