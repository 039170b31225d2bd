import fc from 'fast-check';
import { backupStatuses, type BackupStatus } from '../../../contracts/backupValues';
import { dueSlot, nextRuns, scheduleProblems } from '../../../server/backups/cronSchedule';
import { planRetention, type RetentionCandidate, type RetentionPolicy } from '../../../server/backups/retention';

// Retention decides which backups are deleted for good, so its rules are checked over generated
// histories, not only a few hand-picked ones; the schedule rules that feed it are checked below.

const now = new Date('2030-06-15T12:00:00.000Z');
const minuteMs = 60_000;
const dayMs = 24 * 60 * minuteMs;
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs).toISOString();

/**
 * A history of up to 40 backups started up to 70 days before `now` (a few just after it, a clock
 * skew). Offsets are whole minutes, often exactly whole days, so equal times and the keepDays
 * boundary both come up. Only finished backups have a finishedAt.
 */
const history = fc
  .array(
    fc.record({
      status: fc.constantFrom(...backupStatuses),
      startOffset: fc.oneof(
        fc.integer({ min: -70 * 24 * 60, max: 10 }).map((minutes) => minutes * minuteMs),
        fc.integer({ min: 0, max: 70 }).map((days) => -days * dayMs),
      ),
      durationMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 180 }).map((minutes) => minutes * minuteMs)),
    }),
    { maxLength: 40 },
  )
  .map((rows) =>
    rows.map(({ status, startOffset, durationMs }, i): RetentionCandidate => ({
      id: `backup-${i}`,
      status,
      trigger: 'schedule',
      pinned: false,
      startedAt: at(startOffset - durationMs),
      finishedAt: status === 'pending' || status === 'running' ? null : at(startOffset),
    })),
  );

const keepLast = fc.option(fc.integer({ min: 1, max: 20 }), { nil: null });
const keepDays = fc.option(fc.integer({ min: 1, max: 60 }), { nil: null });
const policy = fc.record({ keepLast, keepDays });

const finished = (b: RetentionCandidate) => Date.parse(b.finishedAt!);
const succeeded = (backups: readonly RetentionCandidate[]) => backups.filter((b) => b.status === 'succeeded');
const plan = (backups: readonly RetentionCandidate[], p: RetentionPolicy) => planRetention(backups, p, now);

describe('planRetention over generated histories', () => {
  it('answers distinct ids of the input, only of succeeded backups', () => {
    fc.assert(
      fc.property(history, policy, (backups, p) => {
        const deleted = plan(backups, p);
        expect(new Set(deleted).size).toBe(deleted.length);
        const byId = new Map(backups.map((b) => [b.id, b]));
        for (const id of deleted) expect(byId.get(id)?.status).toBe('succeeded');
      }),
    );
  });

  it('never deletes the newest succeeded backup', () => {
    fc.assert(
      fc.property(history, policy, (backups, p) => {
        const good = succeeded(backups);
        fc.pre(good.length > 0);
        const deleted = new Set(plan(backups, p));
        const newest = Math.max(...good.map(finished));
        // With several finished at the same instant, at least one of them stays.
        expect(good.some((b) => finished(b) === newest && !deleted.has(b.id))).toBe(true);
        expect(deleted.size).toBeLessThan(good.length);
      }),
    );
  });

  it('with keepLast=N keeps at least min(N, good) and never deletes one of the N newest', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 20 }), keepDays, (backups, n, days) => {
        const good = succeeded(backups);
        const deleted = plan(backups, { keepLast: n, keepDays: days });
        expect(good.length - deleted.length).toBeGreaterThanOrEqual(Math.min(n, good.length));
        // A deleted backup is not among the N newest: at least N others finished no earlier.
        for (const id of deleted) {
          const d = good.find((b) => b.id === id)!;
          expect(good.filter((b) => b.id !== id && finished(b) >= finished(d)).length).toBeGreaterThanOrEqual(n);
        }
        // keepLast alone keeps exactly the N newest.
        if (days === null) expect(good.length - deleted.length).toBe(Math.min(n, good.length));
      }),
    );
  });

  it('with keepDays=D keeps every good backup that finished within D days of now', () => {
    fc.assert(
      fc.property(history, keepLast, fc.integer({ min: 1, max: 60 }), (generated, last, d) => {
        // Always one good backup exactly D days old, and a newer one, so the boundary is tested.
        const boundary: RetentionCandidate = { id: 'boundary', status: 'succeeded', trigger: 'schedule', pinned: false, startedAt: at(-d * dayMs - minuteMs), finishedAt: at(-d * dayMs) };
        const newer: RetentionCandidate = { id: 'newer', status: 'succeeded', trigger: 'schedule', pinned: false, startedAt: at(-2 * minuteMs), finishedAt: at(-minuteMs) };
        const backups = [...generated, boundary, newer];
        const deleted = new Set(plan(backups, { keepLast: last, keepDays: d }));
        for (const b of succeeded(backups)) {
          if (finished(b) >= now.getTime() - d * dayMs) expect(deleted.has(b.id)).toBe(false);
        }
      }),
    );
  });

  it('with both rules keeps what either keeps: it deletes what both would delete', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 60 }), (backups, n, d) => {
        const byLast = new Set(plan(backups, { keepLast: n, keepDays: null }));
        const byDays = new Set(plan(backups, { keepLast: null, keepDays: d }));
        const both = plan(backups, { keepLast: n, keepDays: d });
        expect(new Set(both)).toEqual(new Set([...byLast].filter((id) => byDays.has(id))));
      }),
    );
  });

  it('never deletes a backup while keeping an older good one', () => {
    fc.assert(
      fc.property(history, policy, (backups, p) => {
        const deleted = new Set(plan(backups, p));
        const good = succeeded(backups);
        const oldestKept = Math.min(...good.filter((b) => !deleted.has(b.id)).map(finished));
        for (const b of good) if (deleted.has(b.id)) expect(finished(b)).toBeLessThanOrEqual(oldestKept);
      }),
    );
  });

  it('deletes nothing without a policy', () => {
    fc.assert(fc.property(history, (backups) => expect(plan(backups, { keepLast: null, keepDays: null })).toEqual([])));
  });

  it('does not depend on the order of the history', () => {
    fc.assert(
      fc.property(
        history.chain((backups) => fc.tuple(fc.constant(backups), fc.shuffledSubarray(backups, { minLength: backups.length }))),
        policy,
        ([backups, shuffled], p) => {
          expect(new Set(plan(shuffled, p))).toEqual(new Set(plan(backups, p)));
        },
      ),
    );
  });
});

describe('planRetention examples', () => {
  /** One backup per spec, `daysAgo` before now. */
  const backups = (...specs: [string, BackupStatus, number][]): RetentionCandidate[] =>
    specs.map(([id, status, daysAgo]) => ({
      id,
      status,
      trigger: 'schedule' as const,
      pinned: false,
      startedAt: at(-daysAgo * dayMs - 5 * minuteMs),
      finishedAt: status === 'running' || status === 'pending' ? null : at(-daysAgo * dayMs),
    }));

  it('keepLast 3 deletes the two oldest good backups and leaves failed and corrupt ones alone', () => {
    const history = backups(['a', 'succeeded', 1], ['b', 'failed', 2], ['c', 'succeeded', 3], ['d', 'corrupt', 4], ['e', 'succeeded', 5], ['f', 'succeeded', 6], ['g', 'succeeded', 7]);
    expect(plan(history, { keepLast: 3, keepDays: null }).sort()).toEqual(['f', 'g']);
  });

  it('keepDays 7 keeps a backup exactly 7 days old and deletes older ones', () => {
    const history = backups(['d1', 'succeeded', 1], ['d7', 'succeeded', 7], ['d8', 'succeeded', 8], ['d30', 'succeeded', 30]);
    expect(plan(history, { keepLast: null, keepDays: 7 }).sort()).toEqual(['d30', 'd8']);
  });

  it('keeps the newest good backup even when every backup is older than keepDays', () => {
    const history = backups(['old', 'succeeded', 40], ['older', 'succeeded', 50], ['oldest', 'succeeded', 60]);
    expect(plan(history, { keepLast: null, keepDays: 1 }).sort()).toEqual(['older', 'oldest']);
  });

  it('keeps the union of keepLast and keepDays', () => {
    const history = backups(['n1', 'succeeded', 0.5], ['n2', 'succeeded', 1.5], ['n3', 'succeeded', 2.5], ['n4', 'succeeded', 10], ['n5', 'succeeded', 20]);
    expect(plan(history, { keepLast: 4, keepDays: 3 }).sort()).toEqual(['n5']);
    expect(plan(history, { keepLast: 1, keepDays: 3 }).sort()).toEqual(['n4', 'n5']);
  });

  it('counts neither a running nor a corrupt backup as the newest good one', () => {
    const history = backups(['running', 'running', 0], ['corrupt', 'corrupt', 0.5], ['good', 'succeeded', 1], ['older', 'succeeded', 2]);
    expect(plan(history, { keepLast: 1, keepDays: null })).toEqual(['older']);
  });

  it('deletes nothing from an empty history or one without a good backup', () => {
    expect(plan([], { keepLast: 1, keepDays: 1 })).toEqual([]);
    expect(plan(backups(['f', 'failed', 90], ['c', 'corrupt', 80]), { keepLast: 1, keepDays: 1 })).toEqual([]);
  });
});

describe('scheduleProblems', () => {
  it('accepts a five-field cron in an IANA zone', () => {
    expect(scheduleProblems('0 3 * * *', 'Europe/Berlin')).toEqual({});
    expect(scheduleProblems('*/15 1-5 * * 1-5', 'UTC')).toEqual({});
  });

  it.each([
    ['0 3 * *', 'A cron expression has exactly five fields (minute hour day-of-month month day-of-week); this one has 4.'],
    ['0 0 3 * * *', 'A cron expression has exactly five fields (minute hour day-of-month month day-of-week); this one has 6.'],
    ['61 3 * * *', 'This cron expression is not valid: Invalid value for minute: 61.'],
    ['every night', 'A cron expression has exactly five fields (minute hour day-of-month month day-of-week); this one has 2.'],
  ])('refuses the cron %s on its field in one sentence that does not contradict itself', (cron, reason) => {
    const errors = scheduleProblems(cron, 'UTC');
    expect(errors).toEqual({ cron: [reason] });
  });

  it('refuses a cron that never fires', () => {
    expect(scheduleProblems('0 3 30 2 *', 'UTC')).toEqual({ cron: ['This schedule never runs.'] });
  });

  it('refuses an unknown time zone on its field, and names both fields when both are wrong', () => {
    expect(scheduleProblems('0 3 * * *', 'Mars/Olympus')).toEqual({ timeZone: [expect.stringContaining('Mars/Olympus is not a time zone')] });
    expect(Object.keys(scheduleProblems('nonsense', 'Mars/Olympus')).sort()).toEqual(['cron', 'timeZone']);
  });
});

describe('nextRuns in a zone with daylight saving time', () => {
  it('keeps 03:00 local across the spring change in Europe/Berlin', () => {
    const runs = nextRuns('0 3 * * *', 'Europe/Berlin', new Date('2030-03-29T12:00:00Z'), 3).map((d) => d.toISOString());
    // CET is UTC+1 until the night of 31 March, CEST UTC+2 after.
    expect(runs).toEqual(['2030-03-30T02:00:00.000Z', '2030-03-31T01:00:00.000Z', '2030-04-01T01:00:00.000Z']);
  });

  it('runs a 02:30 schedule once on the autumn night that has 02:30 twice', () => {
    const runs = nextRuns('30 2 * * *', 'Europe/Berlin', new Date('2030-10-26T12:00:00Z'), 2).map((d) => d.toISOString());
    expect(runs).toEqual(['2030-10-27T00:30:00.000Z', '2030-10-28T01:30:00.000Z']);
  });
});

describe('dueSlot: a missed schedule runs once, for its newest slot', () => {
  const daily = '0 3 * * *';
  const lastRun = new Date('2030-01-01T03:00:00Z');

  it('answers the newest of several missed slots, and nothing once that slot ran', () => {
    const start = new Date('2030-01-04T12:00:00Z');
    const slot = dueSlot(daily, 'UTC', lastRun, start);
    expect(slot?.toISOString()).toBe('2030-01-04T03:00:00.000Z');
    // The scheduler records the slot as its last run: the same start has nothing more to run.
    expect(dueSlot(daily, 'UTC', slot!, start)).toBeNull();
    expect(dueSlot(daily, 'UTC', slot!, new Date('2030-01-05T02:59:59Z'))).toBeNull();
    expect(dueSlot(daily, 'UTC', slot!, new Date('2030-01-05T03:00:00Z'))?.toISOString()).toBe('2030-01-05T03:00:00.000Z');
  });

  it('answers null when no slot fell since the last run', () => {
    expect(dueSlot(daily, 'UTC', lastRun, new Date('2030-01-02T02:59:59Z'))).toBeNull();
    expect(dueSlot(daily, 'UTC', lastRun, lastRun)).toBeNull();
  });

  it('reads the slots in the schedule’s time zone', () => {
    const slot = dueSlot(daily, 'America/New_York', new Date('2030-01-01T00:00:00Z'), new Date('2030-01-05T00:00:00Z'));
    expect(slot?.toISOString()).toBe('2030-01-04T08:00:00.000Z');
  });

  it('answers a slot in (since, now] that never repeats, over generated schedules and gaps', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('0 3 * * *', '*/15 * * * *', '30 2 * * 1-5', '0 0 1 * *'),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'),
        fc.integer({ min: 0, max: 400 * 24 * 60 }),
        fc.integer({ min: 0, max: 40 * 24 * 60 }),
        (cron, zone, startMinute, gapMinutes) => {
          const since = new Date(Date.UTC(2030, 0, 1) + startMinute * minuteMs);
          const current = new Date(since.getTime() + gapMinutes * minuteMs);
          const slot = dueSlot(cron, zone, since, current);
          const [next] = nextRuns(cron, zone, since, 1);
          if (next.getTime() > current.getTime()) {
            expect(slot).toBeNull();
            return;
          }
          expect(slot).not.toBeNull();
          expect(slot!.getTime()).toBeGreaterThan(since.getTime());
          expect(slot!.getTime()).toBeLessThanOrEqual(current.getTime());
          // The newest: the schedule's next run after it is in the future.
          expect(nextRuns(cron, zone, slot!, 1)[0].getTime()).toBeGreaterThan(current.getTime());
          expect(dueSlot(cron, zone, slot!, current)).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('what retention may trim (manual backups, pins)', () => {
  const backup = (id: string, daysAgo: number, extra: Partial<RetentionCandidate> = {}): RetentionCandidate => ({
    id,
    status: 'succeeded',
    trigger: 'schedule',
    pinned: false,
    startedAt: at(-daysAgo * dayMs - minuteMs),
    finishedAt: at(-daysAgo * dayMs),
    ...extra,
  });

  it('trims scheduled backups only by default: manual, pre-update and clone backups are kept', () => {
    const history = [
      backup('s1', 1),
      backup('m2', 2, { trigger: 'manual' }),
      backup('s3', 3),
      backup('u4', 4, { trigger: 'pre-update' }),
      backup('s5', 5),
      backup('c6', 6, { trigger: 'clone' }),
    ];
    // keepLast counts the scheduled ones: s1 is kept, s3 and s5 go; the others are not the policy's.
    expect(plan(history, { keepLast: 1, keepDays: null }).sort()).toEqual(['s3', 's5']);
  });

  it('trims every unpinned backup when the policy includes manual ones', () => {
    const history = [backup('s1', 1), backup('m2', 2, { trigger: 'manual' }), backup('m3', 3, { trigger: 'manual' })];
    expect(plan(history, { keepLast: 1, keepDays: null, includeManual: true }).sort()).toEqual(['m2', 'm3']);
  });

  it('never trims a pinned backup, whatever the policy', () => {
    fc.assert(
      fc.property(history, policy, fc.boolean(), (backups, p, includeManual) => {
        const pinned = backups.map((b, i) => (i % 2 === 0 ? { ...b, pinned: true } : b));
        const deleted = new Set(plan(pinned, { ...p, includeManual }));
        for (const b of pinned) if (b.pinned) expect(deleted.has(b.id)).toBe(false);
      }),
    );
  });

  it('keeps the newest good backup even when it is manual and the policy trims scheduled ones', () => {
    const history = [backup('m0', 0, { trigger: 'manual' }), backup('s1', 1), backup('s2', 2)];
    expect(plan(history, { keepLast: 1, keepDays: null })).toEqual(['s2']);
  });
});
