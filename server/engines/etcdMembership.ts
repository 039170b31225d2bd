import fs from 'node:fs';
import path from 'node:path';
import type { InstanceRuntime } from './engine';
import { etcdRootCall } from './etcdAuth';
import { healthy } from './etcdMembers';
import { EngineError, isAlive, isProcessOf, readPidFile } from './processRunner';

// Growing and shrinking an etcd cluster one member at a time, through etcd's own member add and
// remove (DESIGN §12): the cluster learns of a member before its process starts, and forgets it
// before its process stops, so the quorum is always counted on what etcd itself knows.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The client ports of the instance's members, first to last. */
const memberPorts = (rt: InstanceRuntime) => [rt.port, ...(rt.members ?? []).map((m) => m.port)];

/** The votes a cluster of `size` members needs to write. */
export const quorumOf = (size: number) => Math.floor(size / 2) + 1;

/** How many of the instance's members answer /health now. */
export async function healthyCount(rt: InstanceRuntime): Promise<number> {
  const answers = await Promise.all(memberPorts(rt).map((port) => healthy({ port })));
  return answers.filter(Boolean).length;
}

/** The first member that answers /health: where membership changes are asked. */
async function askedMember(rt: InstanceRuntime): Promise<number> {
  for (const port of memberPorts(rt)) if (await healthy({ port })) return port;
  throw new EngineError('No member of the cluster answers: start it first.');
}

/** Tells the cluster a member will join on `peerPort`; its process is started afterwards. */
export async function announceMember(rt: InstanceRuntime, peerPort: number): Promise<void> {
  await whenSettled(async () => {
    await etcdRootCall(rt, await askedMember(rt), 'cluster/member/add', { peerURLs: [`http://127.0.0.1:${peerPort}`] });
  });
}

/**
 * A change of members, asked again while etcd answers "unhealthy cluster": it refuses one while a
 * member has been connected for less than its health interval (5 s), as one just added or started
 * again has. Up to 30 s; a cluster that stays short of a quorum is refused for good.
 */
async function whenSettled<T>(change: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      return await change();
    } catch (error) {
      if (!/unhealthy cluster/.test((error as Error).message) || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

interface EtcdMemberEntry {
  ID?: string;
  name?: string;
  peerURLs?: string[];
}

/**
 * Removes the member on `peerPort` from the cluster, then ends its process (`pidFile`, running
 * `etcdBin`) and deletes its folder. A member the cluster no longer lists is only cleaned up.
 */
export async function removeMember(rt: InstanceRuntime, peerPort: number, folder: string, pidFile: string, etcdBin: string): Promise<void> {
  const asked = await askedMember(rt);
  const { members = [] } = await etcdRootCall<{ members?: EtcdMemberEntry[] }>(rt, asked, 'cluster/member/list', {});
  const listed = members.find((m) => m.peerURLs?.includes(`http://127.0.0.1:${peerPort}`));
  const id = listed?.ID;
  if (id) await whenSettled(() => etcdRootCall(rt, asked, 'cluster/member/remove', { ID: id }));
  const pid = readPidFile(pidFile);
  if (pid && isProcessOf(pid, etcdBin)) {
    // A removed member stops by itself; SIGTERM ends one that has not noticed yet.
    for (let waited = 0; waited < 5_000 && isAlive(pid); waited += 100) await sleep(100);
    if (isAlive(pid)) process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) await sleep(100);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  if (path.basename(path.dirname(folder)) === 'members') fs.rmSync(folder, { recursive: true, force: true });
}
