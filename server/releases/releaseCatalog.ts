import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { ClientPlatformSchema, clientVersionPattern, type ClientPlatform, type ClientVersion } from '../../contracts/clientVersions';
import { HttpProblem } from '../http/problems';

// The releases folder of the data dir: manifest.json and, beside it, the files it lists.

export const ReleaseRecord = Type.Object({
  version: Type.String({ pattern: clientVersionPattern }),
  platform: ClientPlatformSchema,
  /** A bare file name in the releases folder. */
  fileName: Type.String({ pattern: '^[0-9A-Za-z][0-9A-Za-z._+-]*$', maxLength: 200 }),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  releasedAt: Type.String(),
  notes: Type.String(),
});
export type ReleaseRecord = Static<typeof ReleaseRecord>;
const ReleaseManifest = Type.Object({ releases: Type.Array(ReleaseRecord) });
type ReleaseManifest = Static<typeof ReleaseManifest>;
const manifestCheck = Compile(ReleaseManifest);

export const manifestFileName = 'manifest.json';

export function releasesDir(dataDir: string): string {
  return path.join(dataDir, 'releases');
}

/** Reads and checks the manifest; none yet is an empty one. A manifest that is not one is an error, never half-read. */
export async function readManifest(dir: string): Promise<ReleaseManifest> {
  let text: string;
  try {
    text = await fs.promises.readFile(path.join(dir, manifestFileName), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { releases: [] };
    throw error;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    manifest = undefined;
  }
  if (!manifestCheck.Check(manifest)) throw damagedManifest();
  return manifest;
}

/**
 * 503 for a manifest that is not one (a disk fault, a hand edit): the server is fine, its list of
 * releases is not, and the way out is named. The answer names no path on the server.
 */
function damagedManifest(): HttpProblem {
  return new HttpProblem(503, `The list of client releases (releases/${manifestFileName} in the data folder) is damaged: move it aside and build the releases again with \`npm run release\`.`, {
    title: 'Releases unavailable',
  });
}

/** Replaces the manifest in one rename, so a reader never sees half of it. */
export async function writeManifest(dir: string, manifest: ReleaseManifest): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true });
  const part = path.join(dir, `${manifestFileName}.part`);
  await fs.promises.writeFile(part, `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.promises.rename(part, path.join(dir, manifestFileName));
}

/** Newest first: by release time, then by the order the manifest lists them (later is newer). */
function newestFirst(records: readonly ReleaseRecord[]): ReleaseRecord[] {
  return records
    .map((record, order) => ({ record, order }))
    .sort((a, b) => b.record.releasedAt.localeCompare(a.record.releasedAt) || b.order - a.order)
    .map(({ record }) => record);
}

/**
 * What the API says of the releases folder. Writes (a build's, a delete) go one at a time through
 * `update`, so two never lose each other's change.
 */
export class ReleaseCatalog {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly dir: string) {}

  /** The platform's versions, newest first; the first is the latest. */
  async list(platform: ClientPlatform): Promise<ClientVersion[]> {
    const { releases } = await readManifest(this.dir);
    return newestFirst(releases.filter((r) => r.platform === platform)).map((record, index) => ({ ...record, latest: index === 0 }));
  }

  /** The release and where its file is; 404 when the version or its file is not there. */
  async find(version: string, platform: ClientPlatform): Promise<{ release: ClientVersion; file: string }> {
    const release = (await this.list(platform)).find((r) => r.version === version);
    const file = release && path.join(this.dir, path.basename(release.fileName));
    if (!release || !file || !fs.existsSync(file)) throw new HttpProblem(404, `There is no ${platform} client version ${version}.`);
    return { release, file };
  }

  /** Removes an old version and its file; the latest stays (409), so there is always one to download. */
  async remove(version: string, platform: ClientPlatform): Promise<void> {
    await this.update(async (manifest) => {
      const ordered = newestFirst(manifest.releases.filter((r) => r.platform === platform));
      const index = ordered.findIndex((r) => r.version === version);
      if (index < 0) throw new HttpProblem(404, `There is no ${platform} client version ${version}.`);
      if (index === 0) throw new HttpProblem(409, `${version} is the latest ${platform} client: it cannot be removed.`);
      const removed = ordered[index];
      await fs.promises.rm(path.join(this.dir, path.basename(removed.fileName)), { force: true });
      return { releases: manifest.releases.filter((r) => r !== removed) };
    });
  }

  /** Reads, changes and writes the manifest, after any change already under way. */
  update(change: (manifest: ReleaseManifest) => Promise<ReleaseManifest>): Promise<void> {
    const next = this.queue.then(async () => writeManifest(this.dir, await change(await readManifest(this.dir))));
    this.queue = next.catch(() => undefined);
    return next;
  }
}
