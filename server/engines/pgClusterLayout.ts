import fs from 'node:fs';
import path from 'node:path';
import type { ClusterPresetName } from '../../contracts/clusters';
import type { InstanceRuntime } from './engine';
import { EngineError, isProcessOf, readPidFile } from './processRunner';

// Where a PostgreSQL cluster's pieces are (pgCluster.ts): its spec, its members' folders, ports and
// files, and the processes found from them. Both the cluster's lifecycle and its Patroni REST calls
// (pgClusterApi.ts) read them.

/** What a clustered pg instance keeps beyond a single one's: its consensus store and addresses. */
export interface ClusterSpec {
  /** The etcd instance holding the leader lock, and its client URLs. */
  dcsInstanceId: string;
  dcsEndpoints: string[];
  readWritePort: number;
  readOnlyPort: number;
  synchronous: boolean;
  preset: ClusterPresetName;
}

/** What Patroni needs from the pg engine: where PostgreSQL's binaries are, and the superuser's password. */
export interface ClusterTools {
  pgBinDir: string;
  superuserPassword: string;
  /** A member's own parameters beyond Warden's (WAL archiving, when the server keeps an archive). */
  memberParameters?: (m: ClusterMember) => Record<string, string>;
  /** What a member's processes may write besides the instance folder (the archive's local repository). */
  binds?: string[];
}

/** One member: its folder under the instance's, its postgres port and its Patroni REST port. */
export interface ClusterMember {
  ordinal: number;
  name: string;
  dir: string;
  port: number;
  restPort: number;
}

/** Patroni's interpreter: its process shows as this binary. */
export const patroniPython = '/usr/bin/python3';
export const patroniBin = '/usr/bin/patroni';
export const haproxyBin = '/usr/sbin/haproxy';
/** The user Warden calls Patroni's REST API as. */
export const restUser = 'warden';

/** The members of a clustered instance: the first on the instance's own ports, the others on theirs. */
export function clusterMembers(rt: InstanceRuntime): ClusterMember[] {
  const ports = [{ port: rt.port, peerPort: rt.peerPort ?? 0 }, ...(rt.members ?? [])];
  return ports.map((p, i) => ({
    ordinal: i + 1,
    name: `${rt.id}-${i + 1}`,
    dir: path.join(rt.dir, 'members', String(i + 1)),
    port: p.port,
    restPort: p.peerPort,
  }));
}

/** The cluster's own files in the instance folder. */
export const clusterFiles = (rt: InstanceRuntime) => ({
  rest: path.join(rt.dir, 'patroni-api.password'),
  replication: path.join(rt.dir, 'replication.password'),
  rewind: path.join(rt.dir, 'rewind.password'),
  dcs: path.join(rt.dir, 'dcs.password'),
  /** The parameters the cluster was created with: its dynamic configuration's first values. */
  bootstrapParameters: path.join(rt.dir, 'bootstrap-parameters.json'),
  haproxyConf: path.join(rt.dir, 'haproxy.cfg'),
  haproxyPid: path.join(rt.dir, 'haproxy.pid'),
  haproxyLog: path.join(rt.dir, 'haproxy.log'),
  /** HAProxy's runtime socket (the server's alone) and the servers' states it hands a reload. */
  haproxySocket: path.join(rt.dir, 'haproxy.sock'),
  haproxyState: path.join(rt.dir, 'haproxy.state'),
});

/** The longest path a Unix socket may have (sun_path's 108 bytes, with its terminating zero). */
export const socketPathMax = 107;

/**
 * A member's socket folder, or null when the socket's path would be too long for one (a deep data
 * folder): the member is then reached over loopback TCP only, as Patroni, HAProxy and Warden reach
 * it anyway; pgBackRest alone needs the socket.
 */
export function memberSocketDir(m: ClusterMember): string | null {
  const dir = path.join(m.dir, 'run');
  return path.join(dir, `.s.PGSQL.${m.port}`).length <= socketPathMax ? dir : null;
}

/** A member's own files. */
export const memberFiles = (m: ClusterMember) => ({
  config: path.join(m.dir, 'patroni.yml'),
  pid: path.join(m.dir, 'patroni.pid'),
  /** The init of the member's own PID namespace: killing it ends Patroni and its postgres together. */
  sandboxPid: path.join(m.dir, 'sandbox.pid'),
  log: path.join(m.dir, 'patroni.out'),
  data: path.join(m.dir, 'data'),
  run: path.join(m.dir, 'run'),
});

export function readSecret(file: string): string {
  return fs.readFileSync(file, 'utf8').trim();
}

/** Patroni's process on the host, when it runs. */
export function patroniPid(m: ClusterMember): number | null {
  const pid = readPidFile(memberFiles(m).pid);
  return pid !== null && isProcessOf(pid, patroniPython) ? pid : null;
}

/** HAProxy's master process, when it runs. */
export function haproxyPid(rt: InstanceRuntime): number | null {
  const pid = readPidFile(clusterFiles(rt).haproxyPid);
  return pid !== null && isProcessOf(pid, haproxyBin) ? pid : null;
}

export function specOf(rt: InstanceRuntime): ClusterSpec {
  if (!rt.cluster) throw new EngineError('This instance is not a cluster.');
  return rt.cluster;
}

/** A file's text, or null when it cannot be read. */
export function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
