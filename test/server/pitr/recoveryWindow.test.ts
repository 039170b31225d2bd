import type { ArchivedFile, InfoBackup, StanzaInfo } from '../../../server/engines/pgArchive';
import { HttpProblem } from '../../../server/http/problems';
import { lsnValue, planRestore, recoveryWindow, segmentOf, type WindowFacts } from '../../../server/pitr/recoveryWindow';

// The window and a restore's plan from what a repository holds: the arithmetic of WAL positions and
// segments, gaps named with their times, and the refusals pgBackRest itself would not make.

const at = (iso: string) => Date.parse(iso) / 1000;

function backup(label: string, type: InfoBackup['type'], start: string, stop: string, walStart: string, walStop: string, lsnStop: string): InfoBackup {
  return {
    label,
    type,
    prior: null,
    reference: type === 'full' ? null : ['20261126-100000F'],
    archive: { start: walStart, stop: walStop },
    lsn: { start: '0/2000028', stop: lsnStop },
    timestamp: { start: at(start), stop: at(stop) },
    info: { size: 30_000_000, delta: 30_000_000, repository: { size: 4_000_000, delta: 4_000_000 } },
  };
}

const segment = (n: number, time: string, timeline = 1): ArchivedFile => ({
  name: `${timeline.toString(16).toUpperCase().padStart(8, '0')}00000000${n.toString(16).toUpperCase().padStart(8, '0')}`,
  archiveId: '15-1',
  bytes: 100_000,
  time: at(time),
});

function facts(overrides: Partial<WindowFacts> = {}): WindowFacts {
  const info: StanzaInfo = {
    name: 'warden',
    status: { code: 0, message: 'ok' },
    archive: [{ id: '15-1', min: '000000010000000000000002', max: '000000010000000000000009' }],
    db: [{ id: 1, version: '15', 'system-id': 1 }],
    backup: [backup('20261126-100000F', 'full', '2026-11-26T10:00:00Z', '2026-11-26T10:00:05Z', '000000010000000000000002', '000000010000000000000002', '0/2000100')],
  };
  return {
    enabled: true,
    reason: null,
    repository: 'local',
    settings: { archiveTimeoutSeconds: 60, retentionDays: 7 },
    info,
    // Segment 5 is missing: archived at 10:03, then 6 at 10:05.
    archived: [segment(2, '2026-11-26T10:00:06Z'), segment(3, '2026-11-26T10:01:00Z'), segment(4, '2026-11-26T10:03:00Z'), segment(6, '2026-11-26T10:05:00Z'), segment(7, '2026-11-26T10:06:00Z')],
    archiver: null,
    // Where the server wrote when: at 10:06:30 right past segment 7's end (a switch), at 10:07 into 8.
    marks: [
      { at: '2026-11-26T10:02:00.000Z', lsn: '0/3800000' },
      { at: '2026-11-26T10:06:30.000Z', lsn: '0/8000028' },
      { at: '2026-11-26T10:07:00.000Z', lsn: '0/8001000' },
    ],
    restorePoints: [{ name: 'before the migration', at: '2026-11-26T10:02:00.000Z', lsn: '0/3800000', createdBy: null }],
    ...overrides,
  };
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof HttpProblem ? { status: error.status, detail: error.detail } : error;
  }
  throw new Error('not refused');
};

describe('WAL positions and segments', () => {
  it('reads LSNs and segment names as PostgreSQL writes them', () => {
    expect(lsnValue('0/3000028')).toBe(0x3000028n);
    expect(lsnValue('1/0')).toBe(0x1_0000_0000n);
    expect(segmentOf('000000020000000100000003')).toEqual({ timeline: 2, segno: 0x103n });
  });
});

describe('the window', () => {
  it('runs from the oldest backup to the last moment the server was seen writing within the archive, and names the missing segment', () => {
    const window = recoveryWindow(facts());
    expect(window.earliest).toBe('2026-11-26T10:00:05.000Z');
    // 10:06:30 wrote right at segment 8's page header: nothing of 8 yet, so all of it is archived. 10:07 is not.
    expect(window.latest).toBe('2026-11-26T10:06:30.000Z');
    expect(window.gaps).toEqual([{ from: '2026-11-26T10:03:00.000Z', to: '2026-11-26T10:05:00.000Z', reason: 'a WAL segment is missing from the archive' }]);
    expect(window.backups.map((b) => b.id)).toEqual(['20261126-100000F']);
    expect(window.reason).toBeNull();
  });

  it('says why it does not grow while archiving fails, and marks the stretch since as a gap', () => {
    const archiver = {
      archivedCount: 6,
      lastArchivedWal: '000000010000000000000007',
      lastArchivedAt: '2026-11-26T10:06:00.000Z',
      failedCount: 3,
      lastFailedWal: '000000010000000000000008',
      lastFailedAt: '2026-11-26T10:08:00.000Z',
      insertLsn: '0/9000000',
      at: '2026-11-26T10:09:00.000Z',
      archiveTimeoutSeconds: 60,
      waitingSegments: 1,
      oldestWaitingSince: '2026-11-26T10:07:30.000Z',
      stanzaProblem: null,
    };
    const window = recoveryWindow(facts({ archiver }));
    expect(window.reason).toBe('Archiving WAL fails since 2026-11-26T10:08:00.000Z: the window does not grow.');
    expect(window.gaps.at(-1)).toMatchObject({ from: '2026-11-26T10:06:30.000Z', to: '2026-11-26T10:09:00.000Z' });
  });
});

describe("a restore's plan", () => {
  const window = recoveryWindow(facts());
  const plan = (target: Parameters<typeof planRestore>[0]['target'], extra: Partial<Parameters<typeof planRestore>[0]> = {}) =>
    planRestore({ window, archived: facts().archived, marks: facts().marks, target, ...extra });

  it('refuses a moment before the window, after it, or in a gap, stating the window or the gap', () => {
    expect(refusal(() => plan({ time: '2026-11-26T09:59:00Z' }))).toEqual({
      status: 400,
      detail: '2026-11-26T09:59:00Z (2026-11-26T09:59:00.000Z) is outside the recoverable window 2026-11-26T10:00:05.000Z – 2026-11-26T10:06:30.000Z.',
    });
    expect(refusal(() => plan({ time: '2026-11-26T11:06:45+01:00' }))).toMatchObject({ status: 400, detail: expect.stringContaining('(2026-11-26T10:06:45.000Z) is outside') });
    expect(refusal(() => plan({ time: '2026-11-26T10:04:00Z' }))).toEqual({
      status: 400,
      detail: '2026-11-26T10:04:00.000Z falls in a gap of the window (2026-11-26T10:03:00.000Z – 2026-11-26T10:05:00.000Z): a WAL segment is missing from the archive.',
    });
    expect(refusal(() => plan({ name: 'no such point' }, { point: null }))).toMatchObject({ status: 400, detail: "This instance has no restore point named 'no such point'." });
  });

  it('refuses a backup set that ends after the target, which pgBackRest would restore to its end', () => {
    const two = recoveryWindow(
      facts({
        info: {
          ...facts().info!,
          backup: [...facts().info!.backup, backup('20261126-100000F_20261126-100400D', 'diff', '2026-11-26T10:04:00Z', '2026-11-26T10:04:30Z', '000000010000000000000006', '000000010000000000000006', '0/6000100')],
        },
      }),
    );
    const early = { window: two, archived: facts().archived, marks: facts().marks, target: { time: '2026-11-26T10:02:00Z' } };
    // Left to itself it takes the newest set that ends before the target: the full one.
    expect(planRestore(early).backup.id).toBe('20261126-100000F');
    expect(refusal(() => planRestore({ ...early, backupId: '20261126-100000F_20261126-100400D' }))).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/^Backup 20261126-100000F_20261126-100400D ends at 2026-11-26T10:04:30\.000Z, after the target/),
    });
    // After the differential one's end, that one is picked.
    expect(planRestore({ ...early, target: { time: '2026-11-26T10:06:00Z' } }).backup.id).toBe('20261126-100000F_20261126-100400D');
  });

  it('counts the WAL to replay from the set to the target, and estimates from the last pace', () => {
    const toPoint = plan({ name: 'before the migration' }, { point: window.restorePoints[0], pace: { recoveryMs: 2000, walBytes: 16 * 1024 * 1024 } });
    expect(toPoint).toMatchObject({ targetTime: '2026-11-26T10:02:00.000Z', timeline: 1, walSegments: 2, walBytes: 2 * 16 * 1024 * 1024, estimatedSeconds: 4 });
    expect(plan('latest')).toMatchObject({ targetTime: '2026-11-26T10:06:30.000Z', walSegments: 6, estimatedSeconds: null });
  });

  it('answers 409 when there is no physical backup yet', () => {
    const none = recoveryWindow(facts({ info: { ...facts().info!, backup: [] } }));
    expect(none.reason).toBe('No physical backup yet: the window starts with the first full backup.');
    expect(refusal(() => planRestore({ window: none, archived: [], marks: [], target: 'latest' }))).toMatchObject({ status: 409 });
  });
});
