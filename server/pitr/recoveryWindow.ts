import type { PhysicalBackup, RecoveryCheck, RecoveryGap, RecoveryTarget, RecoveryWindow, RestoredFrom, RestorePlan, RestorePoint } from '../../contracts/pitr';
import type { ArchivedFile, ArchiveSettings, StanzaInfo } from '../engines/pgArchive';
import { walSegmentBytes } from '../engines/pgArchive';
import type { ArchiverState } from '../engines/pg';
import { HttpProblem } from '../http/problems';

// The recoverable window of an instance and the plan of a restore inside it, worked out from what
// pgBackRest's repository holds and what the archiver reported. Pure: the service gathers the facts.

/** A WAL position as a number of bytes. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

const segmentBytes = BigInt(walSegmentBytes);
/** Segments per 4 GiB "log id" of a segment name's middle part. */
const segmentsPerId = 0x1_0000_0000n / segmentBytes;

/** A segment's timeline and number from its name (`000000010000000000000003`). */
export function segmentOf(name: string): { timeline: number; segno: bigint } {
  return { timeline: Number.parseInt(name.slice(0, 8), 16), segno: BigInt(`0x${name.slice(8, 16)}`) * segmentsPerId + BigInt(`0x${name.slice(16, 24)}`) };
}

/** The number of the segment an LSN falls in. */
const segnoOf = (lsn: string) => lsnValue(lsn) / segmentBytes;

/** Where the server wrote at a moment, as the service sampled it. */
export interface WalMark {
  at: string;
  lsn: string;
}

export interface WindowFacts {
  enabled: boolean;
  reason: string | null;
  repository: 'local' | 's3';
  settings: ArchiveSettings;
  info: StanzaInfo | null;
  archived: ArchivedFile[];
  archiver: ArchiverState | null;
  marks: WalMark[];
  restorePoints: RestorePoint[];
  lastDrill?: RecoveryCheck | null;
  lastVerify?: RecoveryCheck | null;
  checking?: boolean;
  restoredFrom?: RestoredFrom | null;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export function physicalBackups(info: StanzaInfo | null): PhysicalBackup[] {
  return (info?.backup ?? [])
    .filter((b) => !b.error && b.archive.start && b.archive.stop)
    .map((b) => ({
      id: b.label,
      kind: b.type,
      startedAt: iso(b.timestamp.start),
      finishedAt: iso(b.timestamp.stop),
      walStart: b.archive.start!,
      walStop: b.archive.stop!,
      lsnStart: b.lsn.start,
      lsnStop: b.lsn.stop,
      sizeBytes: b.info.repository.delta,
      databaseBytes: b.info.size,
      dependsOn: b.reference ?? [],
    }));
}

/** Segments (any timeline) the archive lacks between the oldest backup's first and the newest archived. */
function missingSegments(archived: ArchivedFile[], from: bigint): { after: ArchivedFile | undefined; before: ArchivedFile | undefined; segno: bigint; count: bigint }[] {
  const segments = archived.filter((f) => !f.name.endsWith('.history')).map((f) => ({ file: f, ...segmentOf(f.name) }));
  segments.sort((a, b) => (a.segno === b.segno ? a.timeline - b.timeline : a.segno < b.segno ? -1 : 1));
  const holes = [];
  let previous: (typeof segments)[number] | undefined;
  for (const segment of segments) {
    if (segment.segno < from) {
      previous = segment;
      continue;
    }
    const expected = previous ? previous.segno + 1n : from;
    if (segment.segno > expected) holes.push({ after: previous?.file, before: segment.file, segno: expected, count: segment.segno - expected });
    if (!previous || segment.segno >= previous.segno) previous = segment;
  }
  return holes;
}

/** A segment's first page header: a position right after it holds no WAL of that segment yet. */
const longPageHeaderBytes = 40n;

/**
 * The end of the WAL written before a position: after a switch the server writes at the next
 * segment's first record, past its page header, though nothing of that segment exists yet.
 */
function writtenUpTo(lsn: string): bigint {
  const position = lsnValue(lsn);
  const offset = position % segmentBytes;
  return offset <= longPageHeaderBytes ? position - offset : position;
}

/** The end of the newest archived segment: everything written before it is in the archive. */
function archivedEnd(archived: ArchivedFile[]): bigint | null {
  let end: bigint | null = null;
  for (const file of archived) {
    if (file.name.endsWith('.history')) continue;
    const next = (segmentOf(file.name).segno + 1n) * segmentBytes;
    if (end === null || next > end) end = next;
  }
  return end;
}

export function recoveryWindow(facts: WindowFacts): RecoveryWindow {
  const backups = physicalBackups(facts.info);
  const oldest = backups[0];
  const end = archivedEnd(facts.archived);
  const gaps: RecoveryGap[] = [];
  if (oldest) {
    for (const hole of missingSegments(facts.archived, segmentOf(oldest.walStart).segno)) {
      gaps.push({
        from: iso(hole.after?.time ?? hole.before!.time),
        to: iso(hole.before!.time),
        reason: hole.count === 1n ? 'a WAL segment is missing from the archive' : `${hole.count} WAL segments are missing from the archive`,
      });
    }
  }
  // The latest moment whose WAL is all archived: the last time the server was seen writing at or
  // before the archive's end; never before the newest backup, which is whole by itself.
  let latest: string | null = backups.length > 0 ? backups[backups.length - 1].finishedAt : null;
  if (end !== null && latest !== null) {
    for (const mark of facts.marks) if (writtenUpTo(mark.lsn) <= end && mark.at > latest) latest = mark.at;
  }
  const archiver = facts.archiver;
  const failing = archiver?.lastFailedAt && (!archiver.lastArchivedAt || archiver.lastFailedAt > archiver.lastArchivedAt);
  if (failing && archiver && latest) {
    gaps.push({ from: latest, to: archiver.at, reason: `archiving fails since ${archiver.lastFailedAt} (segment ${archiver.lastFailedWal}): nothing after ${latest} can be restored until it works again` });
  }
  const reason = !facts.enabled
    ? facts.reason
    : archiver?.stanzaProblem
      ? `The WAL archive cannot be used: ${archiver.stanzaProblem}`
      : failing
        ? `Archiving WAL fails since ${archiver!.lastFailedAt}: the window does not grow.`
        : backups.length === 0
          ? 'No physical backup yet: the window starts with the first full backup.'
          : null;
  return {
    enabled: facts.enabled,
    reason,
    repository: facts.repository,
    earliest: oldest ? oldest.finishedAt : null,
    latest,
    archiveTimeoutSeconds: facts.settings.archiveTimeoutSeconds,
    retentionDays: facts.settings.retentionDays,
    lastArchivedAt: archiver?.lastArchivedAt ?? null,
    lastArchivedWal: archiver?.lastArchivedWal ?? null,
    lastFailedAt: archiver?.lastFailedAt ?? null,
    lastFailedWal: archiver?.lastFailedWal ?? null,
    gaps,
    backups,
    restorePoints: facts.restorePoints.filter((p) => oldest !== undefined && p.at >= oldest.finishedAt),
    lastDrill: facts.lastDrill ?? null,
    lastVerify: facts.lastVerify ?? null,
    checking: facts.checking ?? false,
    restoredFrom: facts.restoredFrom ?? null,
  };
}

const windowText = (w: { earliest: string; latest: string }) => `${w.earliest} – ${w.latest}`;

export interface PlanFacts {
  window: RecoveryWindow;
  archived: ArchivedFile[];
  marks: WalMark[];
  target: RecoveryTarget;
  backupId?: string;
  /** The named point, found among the instance's restore points. */
  point?: RestorePoint | null;
  /** The pace of the last restore from this instance: WAL bytes replayed and how long it took. */
  pace?: { recoveryMs: number; walBytes: number } | null;
}

/**
 * The backup set, timeline and WAL a restore to `target` needs, after the checks pgBackRest leaves
 * to the operator: the target inside the window and outside its gaps, and after the set's stop time
 * (a set that ends after the target cannot reach it; pgBackRest would silently restore to its end).
 */
export function planRestore(facts: PlanFacts): RestorePlan {
  const { window, target } = facts;
  if (!window.enabled) throw new HttpProblem(409, window.reason ?? 'WAL is not archived for this instance.');
  if (window.earliest === null || window.latest === null || window.backups.length === 0) {
    throw new HttpProblem(409, 'There is no physical backup of this instance yet: take a full backup; the window starts with it.');
  }
  const bounds = { earliest: window.earliest, latest: window.latest };
  const outside = (what: string) =>
    new HttpProblem(400, `${what} is outside the recoverable window ${windowText(bounds)}.`, { title: 'Target outside the window' });
  const end = archivedEnd(facts.archived) ?? 0n;

  let targetTime: string | null = null;
  let targetLsn: bigint | null = null;
  if (target === 'latest') {
    targetTime = window.latest;
  } else if ('time' in target) {
    const at = new Date(target.time);
    targetTime = at.toISOString();
    if (targetTime < window.earliest || targetTime > window.latest) throw outside(`${target.time} (${targetTime})`);
  } else if ('lsn' in target) {
    targetLsn = lsnValue(target.lsn);
    if (targetLsn < lsnValue(window.backups[0].lsnStop) || targetLsn > end) throw outside(`WAL position ${target.lsn}`);
  } else {
    const point = facts.point;
    if (!point) throw new HttpProblem(400, `This instance has no restore point named '${target.name}'.`);
    targetTime = point.at;
    targetLsn = lsnValue(point.lsn);
    if (point.at < window.earliest || targetLsn > end) throw outside(`Restore point '${point.name}' (${point.at})`);
  }
  if (targetTime !== null && target !== 'latest') {
    const gap = window.gaps.find((g) => targetTime! >= g.from && targetTime! <= g.to);
    if (gap) throw new HttpProblem(400, `${targetTime} falls in a gap of the window (${gap.from} – ${gap.to}): ${gap.reason}.`, { title: 'Target in a gap' });
  }

  // The newest set that ends before the target (by time, or by position for an LSN).
  const before = (b: PhysicalBackup) =>
    targetLsn !== null && targetTime === null ? lsnValue(b.lsnStop) <= targetLsn : target === 'latest' || b.finishedAt < targetTime!;
  let backup: PhysicalBackup | undefined;
  if (facts.backupId) {
    backup = window.backups.find((b) => b.id === facts.backupId);
    if (!backup) throw new HttpProblem(400, `This instance has no physical backup ${facts.backupId}.`);
    if (!before(backup)) throw new HttpProblem(400, `Backup ${backup.id} ends at ${backup.finishedAt}, after the target: it cannot reach it. Leave the backup out and Warden picks one that can.`);
  } else {
    backup = [...window.backups].reverse().find(before);
    if (!backup) throw outside(targetTime ?? `WAL position ${(target as { lsn: string }).lsn}`);
  }

  // The WAL to replay: from the set's first segment to the target's (the newest archived for a time
  // past every mark, or for the latest).
  let lastSegno = end > 0n ? end / segmentBytes - 1n : segmentOf(backup.walStop).segno;
  if (targetLsn !== null) lastSegno = targetLsn / segmentBytes;
  else if (target !== 'latest' && targetTime !== null) {
    const after = facts.marks.find((m) => m.at >= targetTime!);
    if (after) lastSegno = segnoOf(after.lsn);
  }
  const firstSegno = segmentOf(backup.walStart).segno;
  const walSegments = Number(lastSegno >= firstSegno ? lastSegno - firstSegno + 1n : 1n);
  const walBytes = walSegments * walSegmentBytes;
  const timelines = facts.archived
    .filter((f) => !f.name.endsWith('.history'))
    .map((f) => segmentOf(f.name))
    .filter((s) => s.segno <= lastSegno);
  const timeline = timelines.reduce((highest, s) => Math.max(highest, s.timeline), segmentOf(backup.walStart).timeline);
  const pace = facts.pace;
  const estimatedSeconds = pace && pace.walBytes > 0 ? Math.round((pace.recoveryMs / pace.walBytes) * walBytes / 100) / 10 : null;
  return { targetTime, target, backup, timeline, walSegments, walBytes, estimatedSeconds, window: bounds };
}
