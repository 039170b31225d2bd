import fs from 'node:fs';
import path from 'node:path';

/** Turns what a regular user is answered or pushed into the same with the server's paths hidden. */
export interface PathRedactor {
  text(value: string): string;
  /** A copy of a JSON-like value with every string passed through `text`; anything else is kept. */
  value<T>(value: T): T;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Hides the data dir from regular users: engine errors, pg_ctl output and startup log lines quote
 * files of the host (`<dataDir>/instances/<id>/data/postmaster.pid`), which only admins may see.
 * An instance's folder becomes `<instance>`, anything else under the data dir `<data>`; admins
 * are answered the full text. One redactor serves every way out: HTTP answers and hub events.
 */
export function pathRedactor(dataDir: string): PathRedactor {
  const resolved = path.resolve(dataDir);
  let real = resolved;
  try {
    real = fs.realpathSync(resolved);
  } catch {
    // Not created yet: engines can only quote the configured path.
  }
  // The longer spelling first, so /private/tmp/x is not left as /private<data>.
  const roots = [...new Set([resolved, real])].sort((a, b) => b.length - a.length);
  // A root must end at a path boundary: /srv/data does not hide /srv/data2.
  const end = '(?![^/\\\\\\s"\'`:;,)\\]}>])';
  const rules = roots.flatMap((root): [RegExp, string][] => [
    [new RegExp(`${escape(path.join(root, 'instances'))}[/\\\\][\\w-]+${end}`, 'g'), '<instance>'],
    [new RegExp(`${escape(root)}${end}`, 'g'), '<data>'],
  ]);

  const text = (value: string) => {
    if (!roots.some((root) => value.includes(root))) return value;
    return rules.reduce((out, [pattern, placeholder]) => out.replace(pattern, placeholder), value);
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    }
    return value;
  };
  return { text, value: <T>(value: T) => walk(value) as T };
}
