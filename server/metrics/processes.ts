import fs from 'node:fs';
import path from 'node:path';

// CPU and memory of an instance's process tree, read from /proc. One snapshot of every process's
// parent and CPU time serves all instances of a sampling round.

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux the server runs on). */
const ticksPerSecond = 100;

export interface ProcessEntry {
  ppid: number;
  /** utime + stime, in ticks. */
  cpuTicks: number;
}

/** Every process's parent and CPU time; empty where /proc is absent. */
export function snapshotProcesses(procRoot = '/proc'): Map<number, ProcessEntry> {
  const processes = new Map<number, ProcessEntry>();
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return processes;
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const entry = readStat(path.join(procRoot, name, 'stat'));
    if (entry) processes.set(pid, entry);
  }
  return processes;
}

function readStat(file: string): ProcessEntry | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch {
    return null; // The process ended while the folder was read.
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state(3) ppid(4) … utime(14) stime(15).
  return { ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
}

/** The process and all its descendants present in the snapshot. */
export function processTree(root: number, processes: Map<number, ProcessEntry>): number[] {
  if (!processes.has(root)) return [];
  const children = new Map<number, number[]>();
  for (const [pid, entry] of processes) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(pid);
    else children.set(entry.ppid, [pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** Resident memory of these processes, from VmRSS (kB) in /proc/<pid>/status. */
export function residentBytes(pids: number[], procRoot = '/proc'): number {
  let bytes = 0;
  for (const pid of pids) {
    try {
      const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(path.join(procRoot, String(pid), 'status'), 'latin1'));
      if (match) bytes += Number(match[1]) * 1024;
    } catch {
      // Ended meanwhile: it holds no memory any more.
    }
  }
  return bytes;
}

export const cpuTicksOf = (pids: number[], processes: Map<number, ProcessEntry>) =>
  pids.reduce((sum, pid) => sum + (processes.get(pid)?.cpuTicks ?? 0), 0);

/** Percent of one core used between two readings of a tree's CPU ticks. */
export function cpuPercent(previous: { at: number; ticks: number }, current: { at: number; ticks: number }): number | undefined {
  const seconds = (current.at - previous.at) / 1000;
  if (seconds <= 0) return undefined;
  // A process of the tree that ended takes its ticks along: never report a negative share.
  return Math.max(0, ((current.ticks - previous.ticks) / ticksPerSecond / seconds) * 100);
}

/** Bytes of the files under a folder, walked without following links; unreadable entries count 0. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) {
        try {
          total += (await fs.promises.lstat(full)).size;
        } catch {
          // Removed meanwhile (a WAL segment recycled).
        }
      }
    }
  }
  return total;
}
