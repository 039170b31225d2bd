import { Cron } from 'croner';

/** A five-field cron read in an IANA time zone (DESIGN §5 backup schedule). */
function cronOf(expression: string, timeZone: string): Cron {
  return new Cron(expression, { paused: true, timezone: timeZone, mode: '5-part' });
}

/** Per-field problems of a schedule, in words for the form; empty when it can be used. */
export function scheduleProblems(expression: string, timeZone: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  let zoneOk = true;
  try {
    new Intl.DateTimeFormat('en', { timeZone }).format(0);
  } catch {
    zoneOk = false;
    errors.timeZone = [`${timeZone} is not a time zone (use an IANA name such as Europe/Berlin or UTC).`];
  }
  try {
    const cron = cronOf(expression.trim(), zoneOk ? timeZone : 'UTC');
    if (cron.nextRun() === null) errors.cron = ['This schedule never runs.'];
  } catch (error) {
    // One sentence that says what is wrong: croner's own count message also offers six- and
    // seven-part forms, which a schedule here does not take.
    const fields = expression.trim().split(/\s+/).filter(Boolean).length;
    const words = (error as Error).message.replace(/^CronPattern:\s*/, '').replace(/\.$/, '');
    errors.cron = [
      fields === 5
        ? `This cron expression is not valid: ${words}.`
        : `A cron expression has exactly five fields (minute hour day-of-month month day-of-week); this one has ${fields}.`,
    ];
  }
  return errors;
}

/** The next `count` run times after `after`. */
export function nextRuns(expression: string, timeZone: string, after: Date, count: number): Date[] {
  return cronOf(expression, timeZone).nextRuns(count, after);
}

/**
 * The newest scheduled time in (since, now], or null when none fell in it. A server that was down
 * over several slots runs once for the newest of them.
 */
export function dueSlot(expression: string, timeZone: string, since: Date, now: Date): Date | null {
  const next = cronOf(expression, timeZone).nextRun(since);
  if (next === null || next.getTime() > now.getTime()) return null;
  const [latest] = cronOf(expression, timeZone).previousRuns(1, new Date(now.getTime() + 1));
  return latest && latest.getTime() > since.getTime() ? latest : next;
}
