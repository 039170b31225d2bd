import { scriptLimits, type ScriptResult } from '../../contracts/scripts';
import type { InstanceRuntime } from '../engines/engine';
import { etcdOwnerEnv } from '../engines/etcdAuth';
import { run } from '../engines/processRunner';
import { instanceUser } from '../engines/instanceUsers';
import { RowBudget } from './resultLimits';

// etcd scripts: one command a line, as etcdctl takes them — put KEY VALUE, get KEY, get --prefix P,
// del KEY, del --prefix P. Blank lines and lines starting with # are skipped. A key or value holding
// blanks is written in double quotes ("a b", with \" and \\ inside); an unquoted value is the rest
// of the line.

export interface EtcdCommand {
  /** The line as written, trimmed. */
  text: string;
  /** 1-based line in the script. */
  line: number;
  /** etcdctl's arguments after the endpoint, or why the line is not a command. */
  args: string[] | { problem: string };
  verb: 'PUT' | 'GET' | 'DEL' | null;
}

/** One token: a double-quoted string or a run of non-blanks; answers it and the index after it. */
function token(line: string, from: number): { value: string; next: number } | null {
  let i = from;
  while (i < line.length && /\s/.test(line[i])) i++;
  if (i >= line.length) return null;
  if (line[i] !== '"') {
    let j = i;
    while (j < line.length && !/\s/.test(line[j])) j++;
    return { value: line.slice(i, j), next: j };
  }
  let value = '';
  let j = i + 1;
  while (j < line.length && line[j] !== '"') {
    if (line[j] === '\\' && j + 1 < line.length) j++;
    value += line[j];
    j++;
  }
  if (j >= line.length) throw new Error('a quoted string is not closed');
  return { value, next: j + 1 };
}

function parseLine(text: string): Pick<EtcdCommand, 'args' | 'verb'> {
  try {
    const first = token(text, 0)!;
    const verb = first.value.toLowerCase();
    let at = first.next;
    let prefix = false;
    const next = () => {
      const t = token(text, at);
      if (t) at = t.next;
      return t;
    };
    let key = next();
    if ((verb === 'get' || verb === 'del') && key?.value === '--prefix') {
      prefix = true;
      key = next();
    }
    if (!key) return { verb: null, args: { problem: `${verb} needs a key` } };
    if (verb === 'put') {
      const rest = text.slice(at).trim();
      if (rest.length === 0) return { verb: null, args: { problem: 'put needs a key and a value' } };
      const value = rest.startsWith('"') ? token(rest, 0)! : { value: rest, next: rest.length };
      if (rest.slice(value.next).trim().length > 0) return { verb: null, args: { problem: 'put takes one value: quote a value holding blanks' } };
      return { verb: 'PUT', args: ['put', '--', key.value, value.value] };
    }
    if (verb === 'get' || verb === 'del') {
      if (next()) return { verb: null, args: { problem: `${verb} takes one key (or --prefix and a prefix)` } };
      const flags = prefix ? ['--prefix'] : [];
      // etcd still answers the full count beside the first maxRows keys.
      return verb === 'get' ? { verb: 'GET', args: ['get', ...flags, `--limit=${scriptLimits.maxRows}`, '--', key.value] } : { verb: 'DEL', args: ['del', ...flags, '--', key.value] };
    }
    return { verb: null, args: { problem: `unknown command ${first.value}: use put, get, get --prefix, del or del --prefix` } };
  } catch (error) {
    return { verb: null, args: { problem: (error as Error).message } };
  }
}

export function parseEtcdScript(script: string): EtcdCommand[] {
  const commands: EtcdCommand[] = [];
  for (const [index, raw] of script.split('\n').entries()) {
    const text = raw.trim();
    if (text.length === 0 || text.startsWith('#')) continue;
    commands.push({ text, line: index + 1, ...parseLine(text) });
  }
  return commands;
}

export interface EtcdScriptOptions {
  etcdctl: string;
  continueOnError: boolean;
  /** When the run must end, as Date.now() ms. */
  deadline: number;
  onStatement: (index: number) => void;
  signal: AbortSignal;
}

interface EtcdKv {
  key: string;
  value?: string;
}

const decode = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

/**
 * Runs the commands with etcdctl, as the sandbox's own user, against the sandbox's client port, logged
 * in as its owner user: a script may do what people may do, never what root may.
 */
export async function runEtcdCommands(rt: InstanceRuntime, commands: EtcdCommand[], options: EtcdScriptOptions): Promise<ScriptResult[]> {
  const results: ScriptResult[] = [];
  const budget = new RowBudget();
  for (const [index, command] of commands.entries()) {
    if (options.signal.aborted) break;
    options.onStatement(index);
    const base = { statement: command.text, line: command.line };
    const started = performance.now();
    let result: ScriptResult;
    if (!Array.isArray(command.args)) {
      result = { ...base, durationMs: 0, error: { message: command.args.problem, line: command.line } };
    } else {
      try {
        const { stdout } = await run(instanceUser(rt), options.etcdctl, [`--endpoints=http://127.0.0.1:${rt.port}`, '-w', 'json', ...command.args], {
          env: etcdOwnerEnv(rt),
          timeoutMs: Math.max(1, options.deadline - Date.now()),
          signal: options.signal,
        });
        const answer = JSON.parse(stdout) as { kvs?: EtcdKv[]; count?: number | string; deleted?: number | string };
        const durationMs = performance.now() - started;
        if (command.verb === 'GET') {
          const rows = budget.statement();
          for (const kv of answer.kvs ?? []) rows.add([decode(kv.key), decode(kv.value)]);
          const kept = rows.result();
          const count = Number(answer.count ?? kept.rowCount);
          result = {
            ...base,
            durationMs,
            command: 'GET',
            columns: [{ name: 'key', type: 'bytes' }, { name: 'value', type: 'bytes' }],
            rows: kept.rows,
            rowCount: count,
            ...((kept.truncated || count > kept.rows.length) && { truncated: true }),
            output: kept.rows.map(([key, value]) => `${key}\n${value}`).join('\n'),
          };
        } else if (command.verb === 'DEL') {
          const deleted = Number(answer.deleted ?? 0);
          result = { ...base, durationMs, command: 'DEL', rowCount: deleted, output: String(deleted) };
        } else {
          result = { ...base, durationMs, command: 'PUT', rowCount: 1, output: 'OK' };
        }
      } catch (error) {
        const message = options.signal.aborted ? 'cancelled' : ((error as Error).message.split('\n').find((l) => /Error:/.test(l)) ?? (error as Error).message).trim();
        result = { ...base, durationMs: performance.now() - started, error: { message, line: command.line } };
      }
    }
    results.push(result);
    if (result.error && !options.continueOnError) break;
  }
  return results;
}
