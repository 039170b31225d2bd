import fs from 'node:fs';
import path from 'node:path';

/**
 * Why instance users could not reach `dir`, or null. A root server runs each instance as its own
 * system user, which is neither the owner nor in the group of the folders above its instance
 * folder: each must let others traverse it (a root-only home folder blocks it). Better said before
 * an instance is created than as initdb's "permission denied".
 */
export function engineCanReach(dir: string): string | null {
  if (process.getuid?.() !== 0) return null;
  let current = path.resolve(dir);
  // Folders not created yet will be made by the server with traversable modes.
  while (!fs.existsSync(current)) current = path.dirname(current);
  for (let folder = current; ; folder = path.dirname(folder)) {
    const { mode } = fs.statSync(folder);
    if ((mode & 0o001) === 0) {
      return (
        `The instances' system users, which run the engines, cannot enter ${folder} (mode ${(mode & 0o777).toString(8)}): ` +
        `put WARDEN_DATA_DIR under folders they can traverse, or allow it with chmod o+x ${folder}.`
      );
    }
    if (folder === path.dirname(folder)) return null;
  }
}
