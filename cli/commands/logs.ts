import { Option, type Command } from 'commander';
import type { Instance } from '../../contracts/instances';
import { logLevels, type LogLevel } from '../../contracts/logLevels';
import type { LogEntry, LogsAllPage, LogsAppendedPayload } from '../../contracts/logs';
import type { PageOf } from '../../contracts/page';
import type { ApiClient, Query } from '../api';
import { contextOf, type Ctx } from '../context';
import { CliError, UsageError } from '../errors';
import { hubConnection } from '../hub';
import { resolveInstance } from '../resolve';
import { positiveInteger } from './shared';

interface LogOptions {
  level?: string;
  minLevel?: LogLevel;
  instance?: string;
  handler?: string;
  search?: string;
  from?: string;
  to?: string;
  limit: number;
  follow?: boolean;
}

const pageSizeMax = 200;

function isoTime(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new UsageError(`${flag} "${value}" is not a date or time (e.g. 2026-11-24T10:00:00Z).`);
  return time.toISOString();
}

/**
 * The filters of GET /logs/all applied to entries pushed by the hub, which sends everything in the
 * joined scope. The search is the server's full-text match approximated: every word, any case.
 */
function matcher(query: Query): (entry: LogEntry) => boolean {
  const levels = typeof query.level === 'string' ? query.level.split(',') : null;
  const min = typeof query.minLevel === 'string' ? logLevels.indexOf(query.minLevel as LogLevel) : -1;
  const words = typeof query.search === 'string' ? query.search.toLowerCase().split(/\s+/).filter(Boolean) : [];
  return (entry) => {
    if (levels && !levels.includes(entry.level)) return false;
    if (min >= 0 && logLevels.indexOf(entry.level) < min) return false;
    if (query.handler !== undefined && entry.handler !== query.handler) return false;
    if (query.instanceId === 'none' && entry.instanceId !== null) return false;
    if (typeof query.to === 'string' && entry.timestamp >= query.to) return false;
    const text = `${entry.message} ${JSON.stringify(entry.properties)}`.toLowerCase();
    return words.every((w) => text.includes(w));
  };
}

/** `time LEVEL source message`, the source being the instance's name (or warden for the control plane's own). */
function formatter(names: Map<string, string>): (entry: LogEntry) => string {
  return (e) => `${e.timestamp} ${e.level.toUpperCase().padEnd(11)} ${e.instanceId ? (names.get(e.instanceId) ?? e.instanceId) : 'warden'}/${e.handler} ${e.message}`;
}

/** The newest `limit` entries matching, oldest first (as a terminal reads a tail). */
async function tail(api: ApiClient, query: Query, limit: number): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  let cursor: string | undefined;
  while (entries.length < limit) {
    const page = await api.get<LogsAllPage>('/logs/all', { ...query, sort: '-timestamp', pageSize: Math.min(pageSizeMax, limit - entries.length), cursor });
    entries.push(...page.items);
    if (!page.nextCursor || page.items.length === 0) break;
    cursor = page.nextCursor;
  }
  return entries.reverse();
}

async function instanceNames(api: ApiClient): Promise<Map<string, string>> {
  const page = await api.get<PageOf<Instance>>('/instances', { pageSize: 200 });
  return new Map(page.items.map((i) => [i.id, i.name]));
}

/**
 * Prints what arrives through the hub until Ctrl-C. The hub is joined before the history is read, so
 * nothing falls between them; entries are printed once each (by id), also after a reconnect.
 */
async function follow(ctx: Ctx, api: ApiClient, query: Query, limit: number, print: (entry: LogEntry) => void): Promise<void> {
  const matches = matcher(query);
  const seen = new Set<number>();
  let history = true;
  const held: LogEntry[] = [];
  const show = (entry: LogEntry) => {
    if (seen.has(entry.id) || !matches(entry)) return;
    seen.add(entry.id);
    print(entry);
  };
  const scope = typeof query.instanceId === 'string' && query.instanceId !== 'none' ? query.instanceId : null;
  const connection = hubConnection(api);
  connection.on('LogsAppended', (payload: LogsAppendedPayload) => {
    for (const entry of payload.entries) {
      if (history) held.push(entry);
      else show(entry);
    }
  });
  const ended = new Promise<void>((resolve, reject) => {
    connection.onclose((error) => (error ? reject(new CliError(`The live connection ended: ${error.message}`)) : resolve()));
    process.once('SIGINT', () => void connection.stop());
    process.once('SIGTERM', () => void connection.stop());
  });
  connection.onreconnected(async () => {
    await connection.invoke('JoinLogs', scope);
    // What arrived while the connection was down.
    for (const entry of await tail(api, query, pageSizeMax)) show(entry);
  });
  try {
    await connection.start();
    await connection.invoke('JoinLogs', scope);
  } catch (error) {
    throw new CliError(`cannot follow the logs of ${api.baseUrl}: ${(error as Error).message}`);
  }
  for (const entry of await tail(api, query, limit)) show(entry);
  history = false;
  for (const entry of held.splice(0)) show(entry);
  // On stderr also with --json: a script reading stdout learns when new entries start to count.
  ctx.out.note('Following; Ctrl-C to stop.');
  await ended;
}

export function registerLogs(program: Command): void {
  program
    .command('logs')
    .description("Log entries you can see, newest last; --follow keeps printing new ones as they come")
    .option('--level <levels>', `only these levels, comma-separated (${logLevels.join(', ')})`)
    .addOption(new Option('--min-level <level>', 'this level and above').choices(logLevels))
    .option('--instance <instance>', "one instance (name or id), or none for Warden's own entries")
    .option('--handler <source>', 'one source, e.g. postgres, etcd, backup, operation')
    .option('--search <words>', 'words that must all occur')
    .option('--from <time>', 'from this time (inclusive)')
    .option('--to <time>', 'until this time (exclusive)')
    .option('--limit <n>', 'how many entries to show first', positiveInteger, 100)
    .option('-f, --follow', 'keep printing new entries (through the live connection)')
    .addHelpText(
      'after',
      `
Examples:
  $ warden logs --instance shop --min-level warning
  $ warden logs --search "checkpoint" --from 2026-11-24T00:00:00Z --limit 500
  $ warden logs --follow --json          # one JSON entry per line`,
    )
    .action(async (options: LogOptions, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      if (options.level) {
        const unknown = options.level.split(',').filter((l) => !logLevels.includes(l as LogLevel));
        if (unknown.length) throw new UsageError(`Unknown level ${unknown.join(', ')}: use ${logLevels.join(', ')}.`);
      }
      const instanceId = options.instance === undefined || options.instance === 'none' ? options.instance : (await resolveInstance(api, options.instance)).id;
      const query: Query = {
        level: options.level,
        minLevel: options.minLevel,
        instanceId,
        handler: options.handler,
        search: options.search,
        from: isoTime(options.from, '--from'),
        to: isoTime(options.to, '--to'),
      };
      const line = formatter(await instanceNames(api));
      if (options.follow) {
        // One JSON document per line in --json mode, so a consumer reads entries as they come.
        await follow(ctx, api, query, options.limit, (entry) => process.stdout.write(`${ctx.out.json ? JSON.stringify(entry) : line(entry)}\n`));
        return;
      }
      const entries = await tail(api, query, options.limit);
      ctx.out.result(entries, () => (entries.length ? entries.map(line).join('\n') : 'No log entries.'));
    });
}
