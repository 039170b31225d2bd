import path from 'node:path';
import { Option, type Command } from 'commander';
import type { AllBackupsPage, Backup } from '../../contracts/backups';
import { backupKinds, backupStatuses, databaseBackupMethods, type BackupKind, type DatabaseBackupMethod } from '../../contracts/backupValues';
import type { ApiClient } from '../api';
import { contextOf } from '../context';
import { CliError, UsageError } from '../errors';
import { downloadBackup } from '../download';
import { formatBytes, renderFields, renderTable, type Column } from '../output';
import { resolveInstance } from '../resolve';
import { pollUntil } from '../wait';
import { confirmDestruction, positiveInteger, waitHelp, type WaitOptions } from './shared';

const columns: Column<Backup>[] = [
  { header: 'Id', value: (b) => b.id },
  { header: 'Instance', value: (b) => b.instanceName },
  { header: 'Kind', value: (b) => b.kind },
  { header: 'Status', value: (b) => (b.verifying ? `${b.status} (verifying…)` : b.status) },
  { header: 'Trigger', value: (b) => b.trigger },
  { header: 'Started', value: (b) => b.startedAt },
  { header: 'Size', value: (b) => formatBytes(b.sizeBytes), align: 'right' },
  { header: 'Verified', value: (b) => (b.verification ? (b.verification.ok ? 'ok' : 'FAILED') : null) },
];

const backupFields = (b: Backup) =>
  renderFields([
    ['Id', b.id],
    ['Instance', `${b.instanceName} (${b.instanceId})`],
    ['Kind', b.kind],
    ['Status', b.status],
    ['Error', b.error],
    ['Started', b.startedAt],
    ['Finished', b.finishedAt],
    ['Size', formatBytes(b.sizeBytes)],
    ['SHA-256', b.sha256],
    ['Verification', b.verification ? `${b.verification.ok ? 'ok' : 'FAILED'}: ${b.verification.detail}` : null],
  ]);

/** The URL segment of a kind: lists and new backups say `files`, deletion says `file`. */
const listSegment = (kind: BackupKind) => (kind === 'file' ? 'files' : 'database');

/** One backup of an instance, looked up through GET /backups (there is no single-backup call). */
async function findBackup(api: ApiClient, instanceId: string, backupId: string): Promise<Backup> {
  for (let page = 1; ; page += 1) {
    const answer = await api.get<AllBackupsPage>('/backups', { instanceId, page, pageSize: 200 });
    const found = answer.items.find((b) => b.id === backupId);
    if (found) return found;
    if (answer.items.length === 0 || page * 200 >= answer.total) throw new CliError(`Not found: the instance has no backup ${backupId}.`);
  }
}

const kindOption = () => new Option('--kind <kind>', 'database (a dump or snapshot) or file (the data folder and logs)').choices(backupKinds);

export function registerBackups(program: Command): void {
  const backups = program.command('backups').alias('backup').description('List, take, download, verify and delete backups');

  backups
    .command('list')
    .alias('ls')
    .argument('[instance]', 'only this instance (name or id)')
    .addOption(kindOption())
    .addOption(new Option('--status <status>', 'only this status').choices(backupStatuses))
    .option('--limit <n>', 'at most this many, newest first', positiveInteger, 50)
    .description('Backups you can see, newest first')
    .addHelpText('after', '\nExamples:\n  $ warden backups list shop --kind database\n  $ warden backups list --status failed --json')
    .action(async (ref: string | undefined, options: { kind?: BackupKind; status?: string; limit: number }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const instanceId = ref ? (await resolveInstance(api, ref)).id : undefined;
      const page = await api.get<AllBackupsPage>('/backups', { instanceId, kind: options.kind, status: options.status, pageSize: Math.min(options.limit, 200) });
      const items = page.items.slice(0, options.limit);
      ctx.out.result(items, () => (items.length ? `${renderTable(items, columns)}\n${page.total} backup(s), ${formatBytes(page.totalBytes)}` : 'No backups.'));
    });

  backups
    .command('create')
    .argument('<instance>', 'name or id')
    .addOption(kindOption().default('database'))
    .addOption(
      new Option('--method <method>', 'a database backup of a pg instance: dump (pg_dump), or a physical full, diff or incr backup for point-in-time recovery').choices(
        databaseBackupMethods,
      ),
    )
    .option('--no-wait', waitHelp.noWait)
    .option('--timeout <seconds>', waitHelp.timeout, positiveInteger, 600)
    .description('Take a backup now (waits for it unless --no-wait)')
    .addHelpText('after', '\nExamples:\n  $ warden backups create shop\n  $ warden backups create shop --method full')
    .action(async (ref: string, options: { kind: BackupKind; method?: DatabaseBackupMethod } & WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      if (options.method && options.kind !== 'database') throw new UsageError('--method is for database backups: leave out --kind file.');
      const api = ctx.api();
      const instance = await resolveInstance(api, ref);
      const body = options.method ? { kind: options.method } : {};
      const started = await api.post<Backup>(`/instances/${instance.id}/backups/${listSegment(options.kind)}/backup`, body);
      if (!options.wait) {
        ctx.out.result(started, () => `Backup ${started.id} of ${instance.name} started.`);
        return;
      }
      if (!ctx.out.json) ctx.out.note(`Backing up ${instance.name} (${started.id})…`);
      const finished = await pollUntil(`backup ${started.id}`, options.timeout, async () => {
        const backup = await findBackup(api, instance.id, started.id);
        return backup.status === 'pending' || backup.status === 'running' ? undefined : backup;
      });
      if (finished.status !== 'succeeded') throw new CliError(`Backup ${finished.id} ${finished.status}: ${finished.error ?? 'no reason given'}`);
      ctx.out.result(finished, () => backupFields(finished));
    });

  backups
    .command('download')
    .argument('<instance>', 'name or id')
    .argument('<backupId>', 'the backup')
    .option('-o, --output <file>', 'where to write it (default: <instance>-<kind>-<backupId>.tar here)')
    .option('--no-progress', 'no progress bar (none is drawn when stderr is not a terminal)')
    .description('Download a backup: resumes a partial download, checks its SHA-256, then renames <file>.partial to <file>')
    .addHelpText('after', '\nExample:\n  $ warden backups download shop 01J9Z… -o shop.tar')
    .action(async (ref: string, backupId: string, options: { output?: string; progress: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const instance = await resolveInstance(api, ref);
      const backup = await findBackup(api, instance.id, backupId);
      const file = path.resolve(options.output ?? `${backup.instanceName}-${backup.kind}-${backup.id}.tar`);
      const result = await downloadBackup(api, instance.id, backup.id, file, { progress: options.progress && Boolean(process.stderr.isTTY) });
      ctx.out.result(result, () =>
        [`Saved ${result.file} (${formatBytes(result.bytes)}).`, `SHA-256 ${result.sha256} verified.`, ...(result.resumedFrom ? [`Resumed after ${formatBytes(result.resumedFrom)}.`] : [])].join('\n'),
      );
    });

  backups
    .command('verify')
    .argument('<instance>', 'name or id')
    .argument('<backupId>', 'the backup')
    .option('--no-wait', waitHelp.noWait)
    .option('--timeout <seconds>', waitHelp.timeout, positiveInteger, 600)
    .description('Restore a backup into a scratch instance and compare it with what was recorded')
    .action(async (ref: string, backupId: string, options: WaitOptions, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const instance = await resolveInstance(api, ref);
      const before = await findBackup(api, instance.id, backupId);
      const accepted = await api.post<Backup>(`/instances/${instance.id}/backups/${backupId}/verify`);
      if (!options.wait) {
        ctx.out.result(accepted, () => `Verifying backup ${backupId}.`);
        return;
      }
      if (!ctx.out.json) ctx.out.note(`Verifying backup ${backupId} of ${instance.name}…`);
      const verified = await pollUntil(`the verification of ${backupId}`, options.timeout, async () => {
        const backup = await findBackup(api, instance.id, backupId);
        const fresh = backup.verification && backup.verification.at !== before.verification?.at;
        return !backup.verifying && fresh ? backup : undefined;
      });
      if (!verified.verification?.ok) throw new CliError(`Verification failed: ${verified.verification?.detail ?? 'no detail'}`);
      ctx.out.result(verified, () => `Backup ${backupId} verified: ${verified.verification?.detail}`);
    });

  backups
    .command('delete')
    .argument('<instance>', 'name or id')
    .argument('<backupId>', 'the backup')
    .option('--force', "also the instance's last good backup")
    .option('-y, --yes', 'do not ask to type the id')
    .description('Delete a backup')
    .action(async (ref: string, backupId: string, options: { force?: boolean; yes?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const instance = await resolveInstance(api, ref);
      const backup = await findBackup(api, instance.id, backupId);
      await confirmDestruction(ctx, `backup ${backup.id}`, backup.id, options.yes);
      const answer = await api.delete<{ id: string }>(`/instances/${instance.id}/backups/${backup.kind}/${backup.id}`, { force: options.force || undefined });
      ctx.out.result(answer, () => `Deleted backup ${backup.id} of ${instance.name}.`);
    });
}
