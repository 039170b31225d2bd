import { InvalidArgumentError, type Command } from 'commander';
import type { Instance } from '../../contracts/instances';
import {
  lsnPattern,
  restorePointNamePattern,
  timeWithOffsetPattern,
  type PhysicalBackup,
  type RecoveryCheck,
  type RecoveryGap,
  type RecoveryTarget,
  type RecoveryWindow,
  type RestorePlan,
  type RestorePoint,
  type RestoreToPointRequest,
} from '../../contracts/pitr';
import { contextOf } from '../context';
import { formatBytes, renderFields, renderTable, type Column } from '../output';
import { resolveGroupId, resolveInstance } from '../resolve';
import { waitForInstance } from '../wait';
import { positiveInteger, waitHelp, type WaitOptions } from './shared';

/** A date, alone or with a clock time: what an operator types for a moment. */
const looksLikeTime = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}.*)?$/;
/** A clock time followed by an offset, however it is written. */
const endsWithOffset = /\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)$/i;

/**
 * `--to` as typed: `latest`, a WAL position, a time with its offset, else a restore point's name. A
 * time without an offset is refused here, before anything is asked: its zone is never guessed.
 */
export function parseRecoveryTarget(value: string): RecoveryTarget {
  if (value === 'latest') return 'latest';
  if (new RegExp(lsnPattern).test(value)) return { lsn: value };
  if (looksLikeTime.test(value)) {
    if (!endsWithOffset.test(value)) {
      throw new InvalidArgumentError('This time has no offset: write the zone it is in, as in 2026-11-26T10:42:00+01:00, or Z for UTC (a time is never guessed).');
    }
    if (!new RegExp(timeWithOffsetPattern).test(value) || Number.isNaN(Date.parse(value))) {
      throw new InvalidArgumentError('Write a time as 2026-11-26T10:42:00+01:00 or 2026-11-26T10:42:00Z.');
    }
    return { time: value };
  }
  if (!new RegExp(restorePointNamePattern).test(value)) {
    throw new InvalidArgumentError('Expected latest, a WAL position (0/3000028), a time with its offset (2026-11-26T10:42:00Z) or a restore point name.');
  }
  return { name: value };
}

function targetText(target: RecoveryTarget): string {
  if (target === 'latest') return 'the latest moment';
  if ('time' in target) return target.time;
  if ('lsn' in target) return `WAL position ${target.lsn}`;
  return `restore point '${target.name}'`;
}

/** 45 s, 12 min, 3 h, 2 days: how far back a moment is, or how long a restore should take. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

const atWal = (at: string | null, wal: string | null) => (at ? `${at}${wal ? ` (${wal})` : ''}` : null);
const checkText = (c: RecoveryCheck | null) => (c ? `${c.ok ? 'ok' : 'FAILED'} at ${c.at}: ${c.detail}` : null);

/** A titled table, indented under its title, or the title and `none`. */
function section<T>(title: string, rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return `${title}: none`;
  return `${title}:\n${renderTable(rows, columns).replace(/^/gm, '  ')}`;
}

const gapColumns: Column<RecoveryGap>[] = [
  { header: 'From', value: (g) => g.from },
  { header: 'To', value: (g) => g.to },
  { header: 'Reason', value: (g) => g.reason },
];

const backupColumns: Column<PhysicalBackup>[] = [
  { header: 'Id', value: (b) => b.id },
  { header: 'Kind', value: (b) => b.kind },
  { header: 'Restorable from', value: (b) => b.finishedAt },
  { header: 'Size', value: (b) => formatBytes(b.sizeBytes), align: 'right' },
  { header: 'Database', value: (b) => formatBytes(b.databaseBytes), align: 'right' },
  { header: 'Needs', value: (b) => b.dependsOn.join(', ') },
];

const pointColumns: Column<RestorePoint>[] = [
  { header: 'Name', value: (p) => p.name },
  { header: 'At', value: (p) => p.at },
  { header: 'WAL position', value: (p) => p.lsn },
  { header: 'By', value: (p) => p.createdBy },
];

function windowText(instance: Instance, w: RecoveryWindow, now: number): string {
  const from = w.restoredFrom;
  const fields = renderFields([
    ['Instance', `${instance.name} (${instance.id})`],
    ['Archiving', w.enabled ? `on, into ${w.repository === 's3' ? 'an S3 bucket' : "this server's disk"}` : 'off'],
    ['Reason', w.reason],
    ['Earliest', w.earliest ?? 'none yet: the window opens with the first full backup'],
    ['Latest', w.latest && `${w.latest} (${duration((now - Date.parse(w.latest)) / 1000)} ago)`],
    ['Archive timeout', `${w.archiveTimeoutSeconds} s`],
    ['Kept', `${w.retentionDays} days`],
    ['Last archived', atWal(w.lastArchivedAt, w.lastArchivedWal)],
    ['Last failure', atWal(w.lastFailedAt, w.lastFailedWal)],
    ['Last drill', checkText(w.lastDrill)],
    ['Last verify', checkText(w.lastVerify)],
    ['Restored from', from && `${from.sourceName} to ${targetText(from.target)}, backup ${from.backupId}, last transaction ${from.lastReplayedAt ?? 'none'}, timeline ${from.timeline}`],
  ]);
  return [fields, section('Gaps', w.gaps, gapColumns), section('Physical backups', w.backups, backupColumns), section('Restore points', w.restorePoints, pointColumns)].join('\n\n');
}

function planText(plan: RestorePlan, name: string): string {
  const { backup } = plan;
  return [
    renderFields([
      ['Target', targetText(plan.target)],
      ['Recovers to', plan.targetTime ?? 'the end of the archived WAL'],
      ['Backup set', `${backup.id} (${backup.kind}, restorable from ${backup.finishedAt}, ${formatBytes(backup.sizeBytes)}${backup.dependsOn.length ? `, needs ${backup.dependsOn.join(', ')}` : ''})`],
      ['Timeline', plan.timeline],
      ['WAL to replay', `${plan.walSegments} segment(s), ${formatBytes(plan.walBytes)}`],
      ['Estimate', plan.estimatedSeconds === null ? 'none: no restore drill or restore of this instance has given a pace yet' : `about ${duration(plan.estimatedSeconds)}`],
      ['Window', `${plan.window.earliest} – ${plan.window.latest}`],
    ]),
    `Dry run: nothing was restored. Without --dry-run this makes ${name}.`,
  ].join('\n');
}

interface RestoreOptions extends WaitOptions {
  to: RecoveryTarget;
  name: string;
  backup?: string;
  group?: string;
  description?: string;
  dryRun?: boolean;
  members?: number;
  dcs?: string;
}

export function registerPitr(program: Command): void {
  const pitr = program
    .command('pitr')
    .description('Point-in-time recovery of pg instances: the recoverable window, restores to a moment into a new instance, named restore points');

  pitr
    .command('window')
    .argument('<instance>', 'name or id')
    .description('The earliest and latest moments a restore can reach, its gaps, physical backups and restore points')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const window = await ctx.api().get<RecoveryWindow>(`/instances/${instance.id}/recovery-window`);
      ctx.out.result(window, () => windowText(instance, window, Date.now()));
    });

  pitr
    .command('restore')
    .argument('<instance>', 'the source (name or id)')
    .description('A new instance holding the source as it was at a moment (waits for it unless --no-wait); the source is not touched')
    .requiredOption('--to <target>', 'latest, a WAL position (0/3000028), a time with its offset (2026-11-26T10:42:00+01:00 or …Z) or a restore point name', parseRecoveryTarget)
    .requiredOption('--name <name>', 'the new instance')
    .option('--backup <id>', 'start from this physical backup (its id in `warden pitr window`) instead of the one picked')
    .option('--group <group>', "the new instance's group (name, id or none); the source's by default")
    .option('--description <text>', 'what it is for')
    .option('--members <n>', 'make it a PostgreSQL cluster of 2–5 members on Patroni (1, a single server, by default)', positiveInteger)
    .option('--dcs <instance>', "a cluster's consensus store (an etcd instance of its group); the source's, or a new 3-member one, by default")
    .option('--dry-run', 'print the plan (backup set, timeline, WAL to replay, estimate) and restore nothing')
    .option('--no-wait', waitHelp.noWait)
    .option('--timeout <seconds>', waitHelp.timeout, positiveInteger, 600)
    .addHelpText(
      'after',
      "\nExamples:\n  $ warden pitr restore shop --to 2026-11-26T10:42:00+01:00 --name shop-before --dry-run\n  $ warden pitr restore shop --to 'before the migration' --name shop-before",
    )
    .action(async (ref: string, options: RestoreOptions, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const source = await resolveInstance(api, ref);
      const body: RestoreToPointRequest = { target: options.to, name: options.name };
      if (options.backup !== undefined) body.backupId = options.backup;
      if (options.group !== undefined) body.groupId = await resolveGroupId(api, options.group);
      if (options.description !== undefined) body.description = options.description;
      if (options.members !== undefined) body.members = options.members;
      if (options.dcs !== undefined) body.dcsInstanceId = (await resolveInstance(api, options.dcs)).id;
      const path = `/instances/${source.id}/restore-point`;
      if (options.dryRun) {
        const plan = await api.post<RestorePlan>(path, { ...body, dryRun: true });
        ctx.out.result(plan, () => planText(plan, options.name));
        return;
      }
      const accepted = await api.post<Instance>(path, body);
      const what = `Restoring ${source.name} to ${targetText(options.to)} into ${accepted.name}`;
      if (!options.wait) {
        ctx.out.result(accepted, () => `${what}: accepted (${accepted.id}).\nFollow it with \`warden instances show ${accepted.name}\` or \`warden logs --instance ${accepted.name} --follow\`.`);
        return;
      }
      if (!ctx.out.json) ctx.out.note(`${what}: waiting…`);
      const done = await waitForInstance(api, accepted.id, 'running', what, options.timeout);
      const from = (await api.get<RecoveryWindow>(`/instances/${done.id}/recovery-window`)).restoredFrom;
      const replayed = from ? `\nLast replayed transaction: ${from.lastReplayedAt ?? 'none after the backup'}, timeline ${from.timeline}, recovery ${duration(from.recoverySeconds)}.` : '';
      ctx.out.result(done, () => `${what}: done, ${done.name} is ${done.status}.${replayed}`);
    });

  pitr
    .command('mark')
    .argument('<instance>', 'name or id')
    .argument('<name>', 'the restore point, e.g. "before the migration"')
    .description('Mark a named restore point in the WAL to restore to later (`pitr restore --to <name>`)')
    .action(async (ref: string, name: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const instance = await resolveInstance(ctx.api(), ref);
      const point = await ctx.api().post<RestorePoint>(`/instances/${instance.id}/restore-points`, { name });
      ctx.out.result(point, () =>
        renderFields([
          ['Restore point', point.name],
          ['Instance', instance.name],
          ['At', point.at],
          ['WAL position', point.lsn],
          ['By', point.createdBy],
        ]),
      );
    });
}
