import fs from 'node:fs';
import path from 'node:path';
import { debianEngineBinaries } from '../../server/engines/detect';
import { etcdEngine } from '../../server/engines/etcd';
import { pgEngine } from '../../server/engines/pg';
import { removeInstanceUser } from '../../server/engines/instanceUsers';

/**
 * The server leaves instances running when it stops (by design); a test run must not. Stops every
 * engine process found under the data dir's instances folder.
 */
export async function stopInstances(dataDir: string) {
  const root = path.join(dataDir, 'instances');
  if (!fs.existsSync(root)) return;
  const pg = pgEngine(debianEngineBinaries);
  const etcd = etcdEngine(debianEngineBinaries);
  for (const id of fs.readdirSync(root)) {
    const rt = { id, dir: path.join(root, id), port: 0 };
    const engine = fs.existsSync(path.join(rt.dir, 'etcd.pid')) ? etcd : pg;
    await engine.stop(rt).catch(() => undefined);
    // Each instance has its own system user when the server runs as root: none outlives the run.
    if (!id.startsWith('.')) await removeInstanceUser(id);
  }
}
