import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePrometheus } from '../../../server/metrics/etcdSampler';
import { cpuPercent, cpuTicksOf, processTree, residentBytes, snapshotProcesses } from '../../../server/metrics/processes';

// What the collector reads: etcd's Prometheus text and /proc, here from text and a folder made
// to look like them, so the odd cases (labels, names sharing a prefix, parentheses in a command
// name) are pinned down.

describe('parsePrometheus', () => {
  it('sums a series over its labels and tells apart names that share a prefix', () => {
    const text = [
      '# HELP etcd_mvcc_db_total_size_in_bytes Total size of the underlying database physically allocated in bytes.',
      '# TYPE etcd_mvcc_db_total_size_in_bytes gauge',
      'etcd_mvcc_db_total_size_in_bytes 2.048e+06',
      'etcd_mvcc_db_total_size_in_use_in_bytes 1.6384e+06',
      'etcd_debugging_mvcc_keys_total 20',
      'etcd_server_proposals_committed_total 118',
      'etcd_server_proposals_committed_total_extra 5',
      'grpc_server_handled_total{grpc_code="OK",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} 20',
      'grpc_server_handled_total{grpc_code="OK",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"} 7',
      'grpc_server_started_total{grpc_method="Put"} 20',
    ].join('\n');
    expect(parsePrometheus(text)).toEqual({
      db_size_bytes: 2_048_000,
      db_in_use_bytes: 1_638_400,
      keys: 20,
      proposals_committed: 118,
      requests: 27,
    });
  });
});

describe('the process tree from /proc', () => {
  let proc: string;
  const stat = (pid: number, name: string, ppid: number, utime: number, stime: number) =>
    `${pid} (${name}) S ${ppid} ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 100 1000 50`;
  const add = (pid: number, name: string, ppid: number, utime: number, stime: number, rssKb: number) => {
    fs.mkdirSync(path.join(proc, String(pid)));
    fs.writeFileSync(path.join(proc, String(pid), 'stat'), stat(pid, name, ppid, utime, stime));
    fs.writeFileSync(path.join(proc, String(pid), 'status'), `Name:\t${name}\nVmRSS:\t    ${rssKb} kB\n`);
  };

  beforeAll(() => {
    proc = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-proc-'));
    add(100, 'postgres', 1, 50, 10, 1000);
    add(101, 'postgres: checkpointer', 100, 5, 5, 200);
    add(102, 'postgres: walwriter (odd) name', 100, 1, 1, 300);
    add(103, 'child of child', 102, 2, 0, 100);
    add(200, 'etcd', 1, 900, 100, 5000);
    fs.mkdirSync(path.join(proc, 'self'));
  });
  afterAll(() => fs.rmSync(proc, { recursive: true, force: true }));

  it('finds a process and its descendants, and adds up their CPU ticks and resident memory', () => {
    const processes = snapshotProcesses(proc);
    const tree = processTree(100, processes).sort();
    expect(tree).toEqual([100, 101, 102, 103]);
    expect(cpuTicksOf(tree, processes)).toBe(74);
    expect(residentBytes(tree, proc)).toBe(1600 * 1024);
    expect(processTree(999, processes)).toEqual([]);
  });

  it('turns ticks into percent of one core, never below zero', () => {
    expect(cpuPercent({ at: 0, ticks: 100 }, { at: 10_000, ticks: 150 })).toBe(5);
    expect(cpuPercent({ at: 0, ticks: 150 }, { at: 10_000, ticks: 100 })).toBe(0);
    expect(cpuPercent({ at: 10_000, ticks: 0 }, { at: 10_000, ticks: 10 })).toBeUndefined();
  });
});
