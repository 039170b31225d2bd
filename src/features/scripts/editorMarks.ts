import type { Text } from '@codemirror/state';
import type { ScriptResult } from '../../../contracts/scripts';

/** A failed statement as the editor marks it. */
export interface ErrorMark {
  /** The 1-based line the statement starts on. */
  line: number;
  statement: string;
  /** PostgreSQL's error position: 1-based, in characters, within the statement. */
  position?: number;
  /** The line the error points at, when the server knows it. */
  errorLine?: number;
  message: string;
}

/** The marks of a run's failed statements. */
export function errorMarks(results: readonly ScriptResult[]): ErrorMark[] {
  return results.flatMap(({ line, statement, error }) =>
    error ? [{ line, statement, position: error.position, errorLine: error.line, message: error.code ? `${error.code}: ${error.message}` : error.message }] : [],
  );
}

/**
 * The span of the document a mark underlines: the offending word when the position is known and
 * the statement is still where the run found it, else the line the error points at. Null when the
 * document no longer has that line (it was edited since).
 */
export function markRange(doc: Text, mark: ErrorMark): { from: number; to: number } | null {
  const lineNumber = mark.errorLine ?? mark.line;
  if (mark.line < 1 || mark.line > doc.lines || lineNumber < 1 || lineNumber > doc.lines) return null;
  const text = doc.toString();
  const start = mark.position ? text.indexOf(mark.statement, doc.line(mark.line).from) : -1;
  if (start < 0 || start > doc.line(mark.line).to) {
    const line = doc.line(lineNumber);
    return { from: line.from, to: line.to };
  }
  const from = Math.min(start + mark.position! - 1, doc.length);
  const word = /^[\w$]*/.exec(text.slice(from))?.[0].length ?? 0;
  return { from, to: Math.min(doc.length, from + Math.max(word, 1)) };
}
