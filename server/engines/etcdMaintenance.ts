import type { HealthCheck, InstanceRuntime } from './engine';
import { etcdRootCall } from './etcdAuth';
import { EngineError } from './processRunner';

// An etcd instance's upkeep (DESIGN §12): its alarms (NOSPACE when the backend reached its quota,
// after which etcd refuses writes), the free space its backend file keeps after deletions and
// compactions (fragmentation), and the two operations that deal with them: compaction (history
// before the current revision is dropped) and defragmentation (each member's file is rewritten
// without the free space). etcd does both; Warden asks, member by member, as root.

/** A backend file smaller than this is not worth defragmenting, whatever share of it is free. */
const fragmentationFloorBytes = 16 * 1024 * 1024;

interface MemberStatus {
  header?: { member_id?: string; revision?: string };
  dbSize?: string;
  dbSizeInUse?: string;
}

interface Alarm {
  memberID?: string;
  alarm?: string;
}

/** The client ports of the instance's members, first to last. */
const memberPorts = (rt: InstanceRuntime) => [rt.port, ...(rt.members ?? []).map((m) => m.port)];

async function statusOf(rt: InstanceRuntime, port: number): Promise<MemberStatus | null> {
  return etcdRootCall<MemberStatus>(rt, port, 'maintenance/status', {}).catch(() => null);
}

/** The alarms the cluster raised, as any answering member reports them. */
async function alarmsOf(rt: InstanceRuntime): Promise<Alarm[] | null> {
  for (const port of memberPorts(rt)) {
    const answer = await etcdRootCall<{ alarms?: Alarm[] }>(rt, port, 'maintenance/alarm', { action: 'GET' }).catch(() => null);
    if (answer) return answer.alarms ?? [];
  }
  return null;
}

/**
 * Health checks for alarms and fragmentation, added to a running instance's probe. Their messages
 * name no figure that changes at every probe, so a quiet instance stays quiet.
 */
export async function maintenanceChecks(rt: InstanceRuntime): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  const alarms = await alarmsOf(rt);
  if (alarms && alarms.length > 0) {
    const kinds = [...new Set(alarms.map((a) => a.alarm ?? 'unknown'))];
    const nospace = kinds.includes('NOSPACE');
    checks.push({
      name: 'alarms',
      level: 'error',
      message: nospace
        ? 'NOSPACE: the backend reached its quota and etcd refuses writes; delete keys, then compact and defragment (which disarms the alarm)'
        : `etcd raised ${kinds.join(', ')}`,
    });
  }
  const fragmented: number[] = [];
  const ports = memberPorts(rt);
  for (const [index, port] of ports.entries()) {
    const status = await statusOf(rt, port);
    const size = Number(status?.dbSize ?? 0);
    const inUse = Number(status?.dbSizeInUse ?? size);
    if (size >= fragmentationFloorBytes && inUse < size / 2) fragmented.push(index + 1);
  }
  if (fragmented.length > 0) {
    const who = ports.length === 1 ? 'the backend file' : `the backend file of member ${fragmented.join(', ')}`;
    checks.push({ name: 'fragmentation', level: 'warn', message: `over half of ${who} is free space: defragment to give it back` });
  }
  return checks;
}

/** Drops the history before the current revision on every member (a physical compaction: done when this answers). */
export async function compact(rt: InstanceRuntime): Promise<string> {
  for (const port of memberPorts(rt)) {
    const status = await statusOf(rt, port);
    const revision = status?.header?.revision;
    if (!revision) continue;
    try {
      await etcdRootCall(rt, port, 'kv/compaction', { revision, physical: true });
    } catch (error) {
      // Compacted to this revision already: nothing is left to drop.
      if (!/required revision has been compacted/.test((error as Error).message)) throw error;
    }
    return `history before revision ${revision} dropped`;
  }
  throw new EngineError('No member of the instance answers.');
}

/**
 * Rewrites each running member's backend file without its free space, one member at a time (a member
 * defragmenting does not answer meanwhile), then disarms a NOSPACE alarm, which etcd keeps raised
 * until told. Answers the bytes given back.
 */
export async function defragment(rt: InstanceRuntime): Promise<string> {
  let before = 0;
  let after = 0;
  let done = 0;
  for (const port of memberPorts(rt)) {
    const status = await statusOf(rt, port);
    if (!status) continue;
    before += Number(status.dbSize ?? 0);
    await etcdRootCall(rt, port, 'maintenance/defragment', {});
    after += Number((await statusOf(rt, port))?.dbSize ?? 0);
    done++;
  }
  if (done === 0) throw new EngineError('No member of the instance answers.');
  for (const alarm of (await alarmsOf(rt)) ?? []) {
    if (alarm.alarm === 'NOSPACE') await etcdRootCall(rt, rt.port, 'maintenance/alarm', { action: 'DEACTIVATE', memberID: alarm.memberID, alarm: 'NOSPACE' });
  }
  return `${done} member${done === 1 ? '' : 's'} defragmented, ${Math.max(0, before - after)} bytes given back`;
}
