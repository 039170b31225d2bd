import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The version releases are built as: the package version, then what `git describe --always --dirty`
 * says of the checkout (e.g. `0.1.0-be60504-dirty`), or the package version alone without git.
 * A tag that already names the package version (`v0.1.0`) adds nothing.
 */
export async function releaseVersion(root: string): Promise<string> {
  const packageVersion: string = JSON.parse(await fs.promises.readFile(path.join(root, 'package.json'), 'utf8')).version;
  let described: string;
  try {
    described = (await run('git', ['describe', '--always', '--dirty'], { cwd: root, timeout: 10_000 })).stdout.trim();
  } catch {
    return packageVersion;
  }
  if (!described || described === packageVersion || described === `v${packageVersion}`) return packageVersion;
  // Image tags allow only these characters, and the version names the image (warden:<version>).
  return `${packageVersion}-${described.replace(/[^0-9A-Za-z._-]/g, '-')}`.slice(0, 100);
}
