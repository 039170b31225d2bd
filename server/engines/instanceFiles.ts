import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EngineUser } from './instanceUsers';

/**
 * Writes a file into a folder an instance's own system user owns, without ever following a link
 * that user may have planted: a temporary file of a random name is created exclusively (O_EXCL
 * and O_NOFOLLOW refuse any existing name or link), filled, handed to `owner` through its
 * descriptor, synced, and renamed over the target (a rename replaces a link, it does not follow
 * it). The folder must resolve inside `within` (the instance's folder), so a folder swapped for a
 * link elsewhere is refused too. A root server writes here, so this is what keeps a compromised
 * instance from steering root's writes to another file on the host.
 */
export function writeInstanceFile(
  file: string,
  content: string,
  options: { within: string; owner?: EngineUser | null; mode?: number },
): void {
  const folder = path.dirname(file);
  const root = fs.realpathSync(options.within);
  const real = fs.realpathSync(folder);
  if (real !== root && !real.startsWith(`${root}${path.sep}`)) {
    throw new Error(`Refusing to write ${path.basename(file)}: its folder leads outside the instance's folder.`);
  }
  const temp = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, options.mode ?? 0o600);
  try {
    fs.writeFileSync(fd, content);
    if (options.owner) fs.fchownSync(fd, options.owner.uid, options.owner.gid);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
