import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// CPU time of groups of processes from /proc (Linux), so that a bench can say where the cores went:
// on a machine of two cores, servers, store, proxy and load client all share them.

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** A group's processes: `pids`, and with `children` every process they started (a postmaster's backends). */
export type CpuGroups = Record<string, { pids: number[]; children?: boolean }>;

export interface CpuSample {
  /** CPU seconds (user + system) so far of each live process of each group, by pid. */
  groups: Record<string, Map<number, number>>;
  /** Busy CPU seconds of the whole machine so far: every process, ours or not. */
  machine: number;
}

function readStat(pid: number): { parent: number; seconds: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state, ppid, … utime and stime are the 14th and 15th fields of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond };
  } catch {
    // Gone since it was listed.
    return null;
  }
}

export function cpuSample(groups: CpuGroups): CpuSample {
  const stats = new Map<number, { parent: number; seconds: number }>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    const stat = Number.isInteger(pid) ? readStat(pid) : null;
    if (stat) stats.set(pid, stat);
  }
  const sample: CpuSample = { groups: {}, machine: machineBusySeconds() };
  for (const [group, { pids, children }] of Object.entries(groups)) {
    const members = new Map<number, number>();
    for (const pid of pids) {
      const stat = stats.get(pid);
      if (stat) members.set(pid, stat.seconds);
    }
    if (children) for (const [pid, stat] of stats) if (pids.includes(stat.parent)) members.set(pid, stat.seconds);
    sample.groups[group] = members;
  }
  return sample;
}

/** The first line of /proc/stat: user, nice, system, idle, iowait, irq, softirq, steal, … in ticks. */
function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / ticksPerSecond;
}

/**
 * Cores each group kept busy between two samples `seconds` apart, and `machine` the whole machine's:
 * a process started in between counts from zero; one that ended in between is not counted.
 */
export function coresUsed(before: CpuSample, after: CpuSample, seconds: number): Record<string, number> {
  const used: Record<string, number> = { machine: (after.machine - before.machine) / seconds };
  for (const [group, members] of Object.entries(after.groups)) {
    let total = 0;
    for (const [pid, cpu] of members) total += cpu - (before.groups[group]?.get(pid) ?? 0);
    used[group] = total / seconds;
  }
  return used;
}
