// Splits a SQL script into statements by PostgreSQL's lexical rules (as psql does before it sends
// each one): a `;` ends a statement unless it sits in a string ('…', E'…' with backslash escapes,
// "identifier", $tag$…$tag$), a comment (-- to the end of the line, nested /* … */) or the body of
// CREATE FUNCTION/PROCEDURE … BEGIN ATOMIC … END. Each statement keeps its offset and line, so an
// error position the server reports maps back onto the script.

export interface SqlStatement {
  /** The statement without the surrounding blanks and without its closing `;`. */
  text: string;
  /** Offsets of `text` in the script: script.slice(start, end) === text. */
  start: number;
  end: number;
  /** 1-based line of the script `text` starts on. */
  line: number;
}

export interface SqlSegment {
  /** Exactly a part of the script; the segments joined are the script. */
  raw: string;
  start: number;
  /** Whether it holds more than blanks and comments. */
  hasCode: boolean;
  /** Offset of its first character that is neither blank nor comment (when it has code). */
  codeStart: number;
}

const identifierStart = /[A-Za-z_\u0080-\uffff]/;
const identifierChar = /[A-Za-z0-9_$\u0080-\uffff]/;
const dollarTag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/** Cuts the script after every statement-ending `;` (and at its end). */
export function sqlSegments(script: string): SqlSegment[] {
  const segments: SqlSegment[] = [];
  let segmentStart = 0;
  let hasCode = false;
  let codeStart = 0;
  // psql's rule for SQL-standard bodies: the first words of the statement, and BEGIN … END depth.
  let words: string[] = [];
  let beginDepth = 0;
  let i = 0;
  const n = script.length;

  const endSegment = (end: number) => {
    segments.push({ raw: script.slice(segmentStart, end), start: segmentStart, hasCode, codeStart: hasCode ? codeStart : end });
    segmentStart = end;
    hasCode = false;
    words = [];
    beginDepth = 0;
  };

  /** Index after a quoted run closed by `quote`, where a doubled quote stands for itself. */
  const skipQuoted = (from: number, quote: string, backslashEscapes: boolean): number => {
    let j = from;
    while (j < n) {
      const c = script[j];
      if (backslashEscapes && c === '\\') {
        j += 2;
        continue;
      }
      if (c === quote) {
        if (script[j + 1] === quote) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    return n;
  };

  const countWord = (word: string) => {
    const w = word.toLowerCase();
    if (words.length < 4) words.push(w);
    const routine = words[0] === 'create' && (isRoutine(words[1]) || (words[1] === 'or' && isRoutine(words[3])));
    if (w === 'begin' && routine) beginDepth++;
    else if (w === 'case' && beginDepth > 0) beginDepth++;
    else if (w === 'end' && beginDepth > 0) beginDepth--;
  };

  while (i < n) {
    const c = script[i];
    const next = script[i + 1];
    if (c === '-' && next === '-') {
      const newline = script.indexOf('\n', i);
      i = newline === -1 ? n : newline + 1;
      continue;
    }
    if (c === '/' && next === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (script[j] === '/' && script[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (script[j] === '*' && script[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      i = j;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (!hasCode) codeStart = i;
    hasCode = true;
    if (c === ';') {
      if (beginDepth === 0) {
        endSegment(i + 1);
        i++;
        continue;
      }
      i++;
      continue;
    }
    if (c === "'") {
      i = skipQuoted(i + 1, "'", false);
      continue;
    }
    if (c === '"') {
      i = skipQuoted(i + 1, '"', false);
      continue;
    }
    if (c === '$') {
      const match = dollarTag.exec(script.slice(i, i + 130));
      if (match) {
        const close = script.indexOf(match[0], i + match[0].length);
        i = close === -1 ? n : close + match[0].length;
        continue;
      }
      i++;
      continue;
    }
    if (identifierStart.test(c)) {
      // E'…' (and e'…') is a string with backslash escapes; any other word is a word.
      if ((c === 'E' || c === 'e') && next === "'") {
        i = skipQuoted(i + 2, "'", true);
        continue;
      }
      let j = i + 1;
      while (j < n && identifierChar.test(script[j])) j++;
      countWord(script.slice(i, j));
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      // A number (or a number glued to a word, which the server rejects): never the start of a word or tag.
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(script[j])) j++;
      i = j;
      continue;
    }
    i++;
  }
  if (segmentStart < n) endSegment(n);
  return segments;
}

function isRoutine(word: string | undefined): boolean {
  return word === 'function' || word === 'procedure';
}

/** The statements of a script, in order; blank and comment-only parts are left out. */
export function splitSql(script: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  // Lines counted once through the script, not from its start for every statement.
  let line = 1;
  let counted = 0;
  for (const segment of sqlSegments(script)) {
    if (!segment.hasCode) continue;
    // From its first code (comments before it belong to no statement) to before its `;`.
    let body = segment.raw.slice(segment.codeStart - segment.start);
    if (body.trimEnd().endsWith(';')) body = body.slice(0, body.lastIndexOf(';'));
    const text = body.trimEnd();
    if (text.length === 0) continue;
    const start = segment.codeStart;
    line += lineAt(script.slice(counted, start), start - counted) - 1;
    counted = start;
    statements.push({ text, start, end: start + text.length, line });
  }
  return statements;
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}
