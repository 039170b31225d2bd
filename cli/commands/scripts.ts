import fs from 'node:fs';
import type { Command } from 'commander';
import { finishedScriptRunStatuses, type Script, type ScriptResult, type ScriptRun } from '../../contracts/scripts';
import type { ApiClient } from '../api';
import { contextOf } from '../context';
import { CliError, UsageError } from '../errors';
import { renderTable } from '../output';
import { readStdin } from '../prompt';
import { resolveInstance } from '../resolve';
import { pollUntil } from '../wait';
import { positiveInteger, waitHelp } from './shared';

/** The script text from a file, or stdin for `-` (or no file while stdin is piped). */
async function scriptText(file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') {
    if (file === undefined && process.stdin.isTTY) throw new UsageError('Name a script file, or pipe the script into stdin.');
    return readStdin();
  }
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** One statement's outcome as a person reads it: the statement, then its rows, output or error. */
function renderResult(result: ScriptResult): string {
  const lines = [`-- line ${result.line} (${Math.round(result.durationMs)} ms): ${result.statement.trim().split('\n').join('\n-- ')}`];
  if (result.columns && result.rows) {
    const columns = result.columns.map((column, index) => ({ header: column.name, value: (row: (string | null)[]) => row[index] ?? 'NULL' }));
    lines.push(renderTable(result.rows, columns, 'keep'));
    if (result.truncated) lines.push(`(first ${result.rows.length} of ${result.rowCount ?? '?'} rows)`);
  }
  if (result.output !== undefined) lines.push(result.output);
  const tag = [result.command, result.rowCount !== undefined && result.rowCount !== null ? `${result.rowCount} row(s)` : null].filter(Boolean).join(' ');
  if (tag && !result.error) lines.push(`(${tag})`);
  for (const notice of result.notices ?? []) lines.push(`${notice.severity}: ${notice.message}`);
  if (result.error) {
    const where = result.error.line ? ` at line ${result.error.line}` : '';
    lines.push(`ERROR${result.error.code ? ` ${result.error.code}` : ''}${where}: ${result.error.message}`);
    if (result.error.detail) lines.push(`DETAIL: ${result.error.detail}`);
    if (result.error.hint) lines.push(`HINT: ${result.error.hint}`);
  }
  return lines.join('\n');
}

function renderRun(run: ScriptRun): string {
  const from = run.copiedFrom === 'backup' ? `backup ${run.backupId}` : run.copiedFrom === 'live' ? 'a copy of the live data' : 'an empty instance';
  const summary = `Run ${run.id} ${run.status} on ${from}: ${run.statements} statement(s), ${run.failures} failed${run.durationMs !== null ? `, ${run.durationMs} ms` : ''}.`;
  const changes = (run.changes ?? []).filter((c) => c.before !== c.after).map((c) => `  ${c.table}: ${c.before} → ${c.after} rows`);
  return [
    ...run.results.map(renderResult),
    ...(changes.length ? ['Rows changed in the sandbox:', ...changes] : []),
    ...(run.error ? [`The run failed: ${run.error}`] : []),
    summary,
  ].join('\n\n');
}

async function waitForRun(api: ApiClient, instanceId: string, runId: string, timeoutSeconds: number): Promise<ScriptRun> {
  return pollUntil(`script run ${runId}`, timeoutSeconds, async () => {
    const run = await api.get<ScriptRun>(`/instances/${instanceId}/script/runs/${encodeURIComponent(runId)}`);
    return finishedScriptRunStatuses.includes(run.status) ? run : undefined;
  });
}

export function registerScripts(program: Command): void {
  const script = program.command('script').description("An instance's saved script, and runs of scripts in a sandbox copy of it");

  script
    .command('get')
    .argument('<instance>', 'name or id')
    .description('Print the saved script')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const saved = await ctx.api().get<Script>(`/instances/${instance.id}/script`);
      ctx.out.result(saved, () => saved.script.replace(/\n$/, ''));
    });

  script
    .command('put')
    .argument('<instance>', 'name or id')
    .argument('[file]', 'the script file; - or nothing (with a pipe) reads stdin')
    .description('Save the script of an instance')
    .addHelpText('after', '\nExamples:\n  $ warden script put shop migrate.sql\n  $ echo "put /flag on" | warden script put settings')
    .action(async (ref: string, file: string | undefined, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const text = await scriptText(file);
      const instance = await resolveInstance(ctx.api(), ref);
      const saved = await ctx.api().put<Script>(`/instances/${instance.id}/script`, { script: text });
      ctx.out.result(saved, () => `Saved the script of ${instance.name} (${Buffer.byteLength(text)} bytes).`);
    });

  script
    .command('run')
    .argument('<instance>', 'name or id')
    .argument('[file]', 'a script to run instead of the saved one; - reads stdin')
    .option(
      '--source <source>',
      'what the sandbox copies: latest-backup (refused while the instance has none), live, empty (nothing) or a backup id',
      'latest-backup',
    )
    .option('--continue-on-error', 'run every statement even after one failed')
    .option('--statement-timeout <seconds>', 'bound on running the statements (server default 60)', positiveInteger)
    .option('--no-wait', waitHelp.noWait)
    .option('--timeout <seconds>', 'seconds to wait for the run, sandbox included', positiveInteger, 900)
    .description('Run a script in a throwaway sandbox copy (never on the instance) and print each statement\'s result')
    .addHelpText(
      'after',
      '\nExamples:\n  $ warden script run shop report.sql --source live\n  $ echo "SELECT count(*) FROM orders;" | warden script run shop -\n  $ warden script run shop          # the saved script, on the latest backup',
    )
    .action(
      async (
        ref: string,
        file: string | undefined,
        options: { source: string; continueOnError?: boolean; statementTimeout?: number; wait: boolean; timeout: number },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const text = file === undefined ? undefined : await scriptText(file);
        const api = ctx.api();
        const instance = await resolveInstance(api, ref);
        const accepted = await api.post<ScriptRun>(`/instances/${instance.id}/script`, {
          ...(text !== undefined && { script: text }),
          source: options.source,
          ...(options.continueOnError && { continueOnError: true }),
          ...(options.statementTimeout && { timeoutMs: options.statementTimeout * 1000 }),
        });
        if (!options.wait) {
          ctx.out.result(accepted, () => `Run ${accepted.id} started on ${instance.name}.`);
          return;
        }
        if (!ctx.out.json) ctx.out.note(`Running in a sandbox of ${instance.name} (run ${accepted.id})…`);
        const run = await waitForRun(api, instance.id, accepted.id, options.timeout);
        ctx.out.result(run, () => renderRun(run));
        if (run.status !== 'succeeded' || run.ok === false) throw new CliError(`The script run ${run.status}${run.failures ? ` (${run.failures} statement(s) failed)` : ''}.`);
      },
    );
}
