import { outageOf, outageSeconds, readWriteOutages } from '../../../server/engines/proxyOutages';

// Lines as HAProxy 2.6 writes them with `log stdout format iso local0 notice` and
// `option log-health-checks`, beside its own untimed notices on the same output.
const check = (at: string, member: string, result: 'failed' | 'succeeded', status: string) =>
  `${at} Health check for server read_write/${member} ${result}, reason: Layer7 wrong status, code: 503, check duration: 1ms, status: ${status}.`;
const state = (at: string, member: string, change: 'UP' | 'DOWN', active: number) =>
  `${at} Server read_write/${member} is ${change}. ${active} active and 0 backup servers ${change === 'UP' ? 'online' : 'left'}. 0 sessions active, 0 requeued, 0 remaining in queue.`;

const log = [
  '[NOTICE]   (11) : New worker (12) forked',
  // A start: the replicas fail /primary and go down, the leader stays up.
  check('2026-11-27T08:00:00.100000+00:00', 'i-1-2', 'failed', '0/1 DOWN'),
  state('2026-11-27T08:00:00.100100+00:00', 'i-1-2', 'DOWN', 2),
  state('2026-11-27T08:00:00.200000+00:00', 'i-1-3', 'DOWN', 1),
  '[WARNING]  (12) : Server read_write/i-1-1 is DOWN, reason: Layer4 connection problem.',
  // The leader's host lost: its first failed check, down a check later, member 2 promoted 19 s on.
  check('2026-11-27T08:10:00.000000+00:00', 'i-1-1', 'failed', '1/2 UP'),
  check('2026-11-27T08:10:00.500000+00:00', 'i-1-1', 'failed', '0/1 DOWN'),
  state('2026-11-27T08:10:00.500100+00:00', 'i-1-1', 'DOWN', 0),
  '2026-11-27T08:10:00.500200+00:00 proxy read_write has no server available!',
  check('2026-11-27T08:10:19.512000+00:00', 'i-1-2', 'succeeded', '2/2 UP'),
  state('2026-11-27T08:10:19.512100+00:00', 'i-1-2', 'UP', 1),
  // The read-only proxy's lines are not the read-write address's.
  '2026-11-27T08:10:21.000000+00:00 Server read_only/i-1-1 is DOWN. 0 active and 0 backup servers left.',
  // A blip: one failed check, then a good one. No outage.
  check('2026-11-27T08:20:00.000000+00:00', 'i-1-2', 'failed', '1/2 UP'),
  check('2026-11-27T08:20:00.500000+00:00', 'i-1-2', 'succeeded', '2/2 UP'),
  // A switchover: member 3 is up before the demoted member 2 goes down.
  check('2026-11-27T09:00:00.000000+00:00', 'i-1-2', 'failed', '1/2 UP'),
  state('2026-11-27T09:00:01.200000+00:00', 'i-1-3', 'UP', 2),
  state('2026-11-27T09:00:02.100000+00:00', 'i-1-2', 'DOWN', 1),
  // Still without a writer at the end of the log.
  state('2026-11-27T10:00:00.000000Z', 'i-1-3', 'DOWN', 0),
  'a line cut sho',
].join('\n');

describe("the read-write address's outages, from HAProxy's log", () => {
  it('reads each interval without a member up, from the lost leader’s first failed check until a member comes up', () => {
    const outages = readWriteOutages(log);
    // The replicas going down at the start and the switchover left a member up: no outage.
    expect(outages.map((o) => [o.from.toISOString(), o.to?.toISOString() ?? null, o.lost, o.found])).toEqual([
      ['2026-11-27T08:10:00.000Z', '2026-11-27T08:10:19.512Z', 'i-1-1', 'i-1-2'],
      ['2026-11-27T10:00:00.000Z', null, 'i-1-3', null],
    ]);
    expect(outages.map(outageSeconds)).toEqual([19.512, null]);
  });

  it('gives a promotion the outage around it, allowing Patroni to date it a loop late, and none far from any', () => {
    const outages = readWriteOutages(log);
    const slack = 6000;
    expect(outageOf(outages, new Date('2026-11-27T08:10:19.000Z'), slack)?.lost).toBe('i-1-1');
    // Patroni recorded the new timeline 3 s after HAProxy saw the new leader.
    expect(outageOf(outages, new Date('2026-11-27T08:10:22.500Z'), slack)?.found).toBe('i-1-2');
    // The switchover is not measured.
    expect(outageOf(outages, new Date('2026-11-27T09:00:02.000Z'), slack)).toBeNull();
    expect(outageOf(outages, new Date('2026-11-27T08:30:00.000Z'), slack)).toBeNull();
    expect(outageOf(outages, new Date('2026-11-27T10:30:00.000Z'), slack)?.to).toBeNull();
    expect(readWriteOutages('')).toEqual([]);
  });
});
