import { Option, type Command } from 'commander';
import type { ConfigParameter, InstanceConfig, UpdateConfigResponse } from '../../contracts/instances';
import { contextOf } from '../context';
import { UsageError } from '../errors';
import { renderTable, type Column } from '../output';
import { resolveInstance } from '../resolve';
import { waitForInstance } from '../wait';
import { parsePairs, positiveInteger, waitHelp } from './shared';

const columns: Column<ConfigParameter>[] = [
  { header: 'Name', value: (p) => p.name },
  { header: 'Value', value: (p) => (p.unit ? `${p.value} ${p.unit}` : p.value) },
  { header: 'Default', value: (p) => p.default },
  { header: 'Applies', value: (p) => p.apply },
  { header: 'Editable', value: (p) => (p.editable ? 'yes' : `no (${p.reason ?? p.policy})`) },
];

export function registerConfig(program: Command): void {
  const config = program.command('config').description("Read and change an instance's configuration");

  config
    .command('get')
    .argument('<instance>', 'name or id')
    .argument('[names...]', 'only these parameters')
    .option('--changed', 'only parameters that differ from their default')
    .description('Parameters with value, default and how a change applies')
    .addHelpText('after', '\nExamples:\n  $ warden config get shop max_connections work_mem\n  $ warden config get shop --changed --json')
    .action(async (ref: string, names: string[], options: { changed?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const current = await ctx.api().get<InstanceConfig>(`/instances/${instance.id}/config`);
      const unknown = names.filter((n) => !current.parameters.some((p) => p.name === n));
      if (unknown.length) throw new UsageError(`${instance.name} has no parameter ${unknown.join(', ')}.`);
      const parameters = current.parameters.filter(
        (p) => (names.length === 0 || names.includes(p.name)) && (!options.changed || (p.default !== null && p.value !== p.default)),
      );
      ctx.out.result({ ...current, parameters }, () => {
        const pending = current.pendingRestart.length ? `\nWaiting for a restart: ${current.pendingRestart.join(', ')}` : '';
        return `${renderTable(parameters, columns)}\nRevision ${current.revision}${pending}`;
      });
    });

  config
    .command('set')
    .argument('<instance>', 'name or id')
    .argument('<name=value...>', 'the parameters to change')
    .addOption(
      new Option('--apply <how>', 'reload applies reload-only changes now; restart also restarts when a change needs it; none only saves')
        .choices(['none', 'reload', 'restart'])
        .default('reload'),
    )
    .option('--no-wait', waitHelp.noWait)
    .option('--timeout <seconds>', waitHelp.timeout, positiveInteger, 600)
    .description('Change parameters: checked by the server (errors per parameter), saved as a revision, applied as asked')
    .addHelpText('after', '\nExamples:\n  $ warden config set shop work_mem=8MB\n  $ warden config set shop max_connections=200 --apply restart')
    .action(async (ref: string, words: string[], options: { apply: 'none' | 'reload' | 'restart'; wait: boolean; timeout: number }, command: Command) => {
      const ctx = contextOf(command);
      const parameters = parsePairs(words);
      const instance = await resolveInstance(ctx.api(), ref);
      const answer = await ctx.api().put<UpdateConfigResponse>(`/instances/${instance.id}/config`, { parameters, apply: options.apply });
      if (answer.applied === 'restarting' && options.wait) {
        if (!ctx.out.json) ctx.out.note(`Saved revision ${answer.revision}; restarting ${instance.name}…`);
        await waitForInstance(ctx.api(), instance.id, 'running', `Restarting ${instance.name}`, options.timeout);
      }
      ctx.out.result(answer, () => {
        const lines = [`Saved revision ${answer.revision} of ${instance.name}.`];
        if (answer.reload.length) lines.push(`Applied by a reload: ${answer.reload.join(', ')}${answer.applied === 'reloaded' ? ' (reloaded)' : ''}`);
        if (answer.restart.length) {
          lines.push(`Needing a restart: ${answer.restart.join(', ')}${answer.applied === 'restarting' ? ' (restarted)' : ' (run `warden instances restart` to apply)'}`);
        }
        return lines.join('\n');
      });
    });
}
