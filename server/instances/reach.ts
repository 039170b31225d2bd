import fs from 'node:fs';
import path from 'node:path';
import { engineUser } from '../engines/processRunner';

/**
 * Why the engine user could not reach `dir`, or null. A root server runs engines as `postgres`,
 * which must traverse every parent folder of an instance's data dir (a root-only home folder
 * blocks it): better said before an instance is created than as initdb's "permission denied".
 */
export function engineCanReach(dir: string): string | null {
  const user = engineUser();
  if (!user) return null;
  let current = path.resolve(dir);
  // Folders not created yet will be made by the server with traversable modes.
  while (!fs.existsSync(current)) current = path.dirname(current);
  for (let folder = current; ; folder = path.dirname(folder)) {
    const { mode, uid, gid } = fs.statSync(folder);
    const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) {
      return (
        `The ${user.name} user, which runs the engines, cannot enter ${folder} (mode ${(mode & 0o777).toString(8)}): ` +
        `put WARDEN_DATA_DIR under folders it can traverse, or allow it with chmod o+x ${folder}.`
      );
    }
    if (folder === path.dirname(folder)) return null;
  }
}
