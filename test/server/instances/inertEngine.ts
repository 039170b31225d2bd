import fs from 'node:fs';
import path from 'node:path';
import type { ConfigParameter, Engine } from '../../../server/engines/engine';

/**
 * An engine that runs nothing: for tests about who may call what (the access matrix), where a
 * real PostgreSQL would only add minutes. Everything about engines is tested with the real ones.
 */
export function inertEngine(type: 'pg' | 'etcd'): Engine {
  const running = new Set<string>();
  const parameters: ConfigParameter[] = [
    { name: 'work_mem', value: '4MB', default: '4MB', type: 'string', unit: null, min: null, max: null, enumValues: null, apply: 'reload', description: 'Memory per sort.' },
  ];
  return {
    type,
    unavailable: async () => null,
    version: async () => (type === 'pg' ? '15.0' : '3.4.0'),
    initialize: async () => undefined,
    start: async (rt) => void running.add(rt.id),
    stop: async (rt) => void running.delete(rt.id),
    restart: async (rt) => void running.add(rt.id),
    reload: async () => ({ errors: [], pendingRestart: [] }),
    pid: (rt) => (running.has(rt.id) ? 4242 : null),
    probe: async (rt) => ({
      running: running.has(rt.id),
      level: running.has(rt.id) ? 'good' : 'error',
      checks: [{ name: 'process', level: running.has(rt.id) ? 'good' : 'error', message: 'inert' }],
    }),
    parameters: async () => parameters,
    pendingRestart: async () => [],
    validate: async () => ({}),
    apply: async (_rt, changes) => ({ reload: Object.keys(changes), restart: [] }),
    resetManaged: () => [],
    clone: async () => undefined,
    logDir: (rt) => `${rt.dir}/logs`,
    remove: async () => undefined,
    members: async (rt) => [
      { ordinal: 1, name: 'member 1', role: 'leader', state: running.has(rt.id) ? 'running' : 'stopped', host: '127.0.0.1', port: rt.port, lagBytes: null, lagSeconds: null, pendingRestart: false, timeline: null, raftIndex: null, dbSizeBytes: null },
    ],
    stoppedMembers: () => [],
    backupDatabase: async (_rt, dir) => {
      fs.writeFileSync(path.join(dir, 'manifest.json'), '{"engine":"inert"}');
      return { format: 'inert', contents: { keyCount: 0 } };
    },
    restoreDatabase: async (_dir, rt) => void running.add(rt.id),
    inspect: async (_rt, recorded) => recorded,
    // Like the real engines: whatever of the instance folder exists (a file backup needs something to pack).
    fileBackupPaths: (rt) => (fs.existsSync(rt.dir) ? fs.readdirSync(rt.dir).sort() : []),
  };
}
