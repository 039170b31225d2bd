// What PostgreSQL would refuse of a parameter value, found before anything is saved: a value the
// next start would stop on must never reach postgresql.auto.conf. PostgreSQL itself is asked
// (`postgres -C`, which reads and checks settings, then exits), after the few checks it cannot make:
// list syntax, paths where a locale or time zone name belongs, libraries it does not have.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseError } from 'pg';
import type { InstanceRuntime } from './engine';
import { ParametersRefused } from './parameterValues';
import { isQuotedList, listElements } from './pgLists';
import { EngineError, run } from './processRunner';
import { instanceUser } from './instanceUsers';

/** glibc reads a locale from a file when its name holds a slash. */
const localeParameters = new Set(['lc_messages', 'lc_monetary', 'lc_numeric', 'lc_time']);
const timeZoneParameters = new Set(['TimeZone', 'log_timezone']);
const libraryParameters = new Set(['shared_preload_libraries', 'session_preload_libraries', 'local_preload_libraries']);

/** A library as PostgreSQL finds it in its library folder: a name, no path. */
const libraryName = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export interface PgParameterChecks {
  /**
   * What is wrong with each value (of those that passed the checks of their metadata), by name.
   * `rt` is the instance PostgreSQL is asked for (as its user, in its folder); null for one not made yet.
   */
  problems(rt: InstanceRuntime | null, changes: [string, string][]): Promise<Map<string, string>>;
}

export function pgParameterChecks(bin: (tool: string) => string): PgParameterChecks {
  let libraryDir: Promise<string> | undefined;
  const libraries = () => (libraryDir ??= run(null, bin('pg_config'), ['--pkglibdir']).then(({ stdout }) => stdout.trim()));

  async function beforeAsking(name: string, value: string): Promise<string | null> {
    if (localeParameters.has(name) && value.includes('/')) return `${name} names a locale, not a path.`;
    if (timeZoneParameters.has(name) && (value.startsWith('/') || value.split('/').includes('..'))) return `${name} names a time zone, not a path.`;
    if (!isQuotedList(name)) return null;
    const elements = listElements(name, value);
    if (elements === null) return `${name} must be a list separated by commas, each element in double quotes when it holds a comma, a space or capitals.`;
    if (!libraryParameters.has(name)) return null;
    // local_preload_libraries loads a bare name from the plugins folder only.
    const dir = name === 'local_preload_libraries' ? path.join(await libraries(), 'plugins') : await libraries();
    for (const element of elements) {
      if (!libraryName.test(element)) return `${name} names libraries installed with PostgreSQL, without a path: not ${element}.`;
      const found = [element, `${element}.so`].some((file) => fs.statSync(path.join(dir, file), { throwIfNoEntry: false })?.isFile());
      if (!found) return `PostgreSQL has no library ${element} that ${name} can load: the next start would fail.`;
    }
    return null;
  }

  return {
    async problems(rt, changes) {
      const found = new Map<string, string>();
      const asked: [string, string][] = [];
      for (const [name, value] of changes) {
        const problem = await beforeAsking(name, value);
        if (problem) found.set(name, problem);
        else asked.push([name, value]);
      }
      // All at once; only when PostgreSQL refuses one is each asked alone, to tell which.
      if (!rt || asked.length === 0 || (await startRefusal(bin('postgres'), rt, asked)) === null) return found;
      for (const change of asked) {
        const words = await startRefusal(bin('postgres'), rt, [change]);
        if (words) found.set(change[0], words);
      }
      return found;
    },
  };
}

/**
 * PostgreSQL's own answer to starting with these values: null when it would start, else its
 * words. It reads no configuration file of the instance's (/dev/null, and its folder holds none),
 * so a value saved before can neither hide nor spoil the answer.
 */
async function startRefusal(postgres: string, rt: InstanceRuntime, changes: [string, string][]): Promise<string | null> {
  const settings = changes.flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  try {
    await run(instanceUser(rt), postgres, ['--config-file=/dev/null', '-D', rt.dir, '-C', 'port', ...settings], { timeoutMs: 30_000 });
    return null;
  } catch (error) {
    const words = error instanceof EngineError ? postgresWords(error.message) : null;
    if (words === null) throw error;
    return words;
  }
}

/** PostgreSQL's message with its detail and hint, from its log lines (`… FATAL:  invalid value …`). */
function postgresWords(log: string): string | null {
  const lines = [...log.matchAll(/\b(?:FATAL|ERROR|DETAIL|HINT):\s+(.*)$/gm)].map((match) => match[1].trim());
  return lines.length === 0 ? null : sentences(lines);
}

const sentences = (parts: (string | undefined)[]) =>
  parts
    .filter((part): part is string => Boolean(part))
    .map((part) => `${part[0].toUpperCase()}${part.slice(1)}${/[.!?]$/.test(part) ? '' : '.'}`)
    .join(' ');

/** SQLSTATEs with which ALTER SYSTEM refuses a value (or a name): the caller's to fix, not the server's. */
const refusalCode = (code: string) => code.startsWith('22') || ['42704', '55P02', '42601', '42602'].includes(code);

/** ALTER SYSTEM's refusal of one parameter as the caller's error, or null for any other failure. */
export function alterSystemRefusal(error: unknown, name: string): ParametersRefused | null {
  if (!(error instanceof DatabaseError) || !refusalCode(error.code ?? '')) return null;
  return new ParametersRefused(Object.fromEntries([[name, [sentences([error.message, error.detail, error.hint])]]]));
}
