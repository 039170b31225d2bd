// When a PostgreSQL cluster's read-write address had no writer, as its HAProxy saw it. HAProxy logs
// each check of a member's /primary that changes its status, and each member going up or down, with
// a timestamp to the microsecond (`log stdout format iso`, `option log-health-checks`, notices only).
// A lost leader reads as: its first failed check, then it goes down, leaving no member up; later a
// member comes up. The writer was gone from the first failed check (HAProxy checks every interval, so
// the loss is known to within one) until then. A switchover reads otherwise: the new leader is up
// before the old one goes down, and the old one stopped taking writes while its Patroni still
// answered /primary (it demotes first). Its checks cannot tell when writes stopped, so a switchover
// is not measured here rather than measured short (the failover bench found 0.5 s read for a 2.1 s gap).

/** An interval without a member up behind the read-write address; `to` null while it lasts. */
export interface WriteOutage {
  from: Date;
  to: Date | null;
  /** The member that went down, and the one up after it. */
  lost: string;
  found: string | null;
}

const timestamp = String.raw`(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))`;
const checkLine = new RegExp(`^${timestamp} Health check for server read_write/(\\S+) (failed|succeeded)\\b`);
const stateLine = new RegExp(`^${timestamp} Server read_write/(\\S+) is (UP|DOWN)\\b.*?\\b(\\d+) active and \\d+ backup servers`);

/** Reads every outage of the read-write address from HAProxy's log, oldest first. */
export function readWriteOutages(log: string): WriteOutage[] {
  const outages: WriteOutage[] = [];
  /** Members whose checks fail while they are still up: since when. */
  const failing = new Map<string, Date>();
  let open: WriteOutage | null = null;
  for (const line of log.split('\n')) {
    const check = checkLine.exec(line);
    const state = check ? null : stateLine.exec(line);
    const at = new Date((check ?? state)?.[1] ?? Number.NaN);
    if (Number.isNaN(at.getTime())) continue;
    if (check) {
      const [, , member, result] = check;
      if (result === 'succeeded') failing.delete(member);
      else if (!failing.has(member)) failing.set(member, at);
      continue;
    }
    const [, , member, change, active] = state!;
    if (change === 'UP') {
      failing.delete(member);
      if (open) {
        open.to = at;
        open.found = member;
        open = null;
      }
      continue;
    }
    const from = failing.get(member) ?? at;
    failing.delete(member);
    // With another member up already (a switchover, or a replica going down at HAProxy's start),
    // the address kept a member up.
    if (open || Number(active) > 0) continue;
    outages.push((open = { from, to: null, lost: member, found: null }));
  }
  return outages;
}

/**
 * The outage a leader change promoted at `promotedAt` ended: the one open at that moment, or the
 * one that closed soonest after it began within `slackMs` (Patroni dates the new timeline when the
 * new leader records it, a loop after its promotion; HAProxy may see the new leader first).
 */
export function outageOf(outages: WriteOutage[], promotedAt: Date, slackMs: number): WriteOutage | null {
  const at = promotedAt.getTime();
  let best: WriteOutage | null = null;
  for (const outage of outages) {
    const from = outage.from.getTime();
    const to = outage.to?.getTime() ?? Number.POSITIVE_INFINITY;
    if (at < from - slackMs || at > to + slackMs) continue;
    if (best === null || Math.abs(from - at) < Math.abs(best.from.getTime() - at)) best = outage;
  }
  return best;
}

/** An outage's length in seconds, to the millisecond; null while it lasts. */
export function outageSeconds(outage: WriteOutage): number | null {
  return outage.to === null ? null : Math.round(outage.to.getTime() - outage.from.getTime()) / 1000;
}
