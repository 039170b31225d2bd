import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { HashingCounter } from '../backups/storage';

// An OCI image layout (https://github.com/opencontainers/image-spec/blob/main/image-layout.md) in
// one tarball, with Docker's manifest.json beside it so `docker load` takes it as well as podman.

const run = promisify(execFile);

export const ociMediaTypes = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

/** One file of a layer: read from `source` on this machine, or given as `data`. */
export interface LayerFile {
  /** Absolute path inside the image. */
  path: string;
  source?: string;
  data?: Buffer;
  mode: number;
}

export interface BlobRef {
  digest: string;
  size: number;
}

/** Every file and its bytes carry this time, so equal content gives equal layers. */
export interface Reproducible {
  /** Seconds since 1970 (SOURCE_DATE_EPOCH); 0 by default. */
  epoch: number;
}

const gzipLevel = 9;

/**
 * The shared objects `ldd` says a dynamically linked binary loads, the dynamic loader included,
 * as absolute paths (vdso has none). A library ldd cannot find fails the build.
 */
export function parseLdd(output: string): string[] {
  const paths: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('statically linked')) continue;
    if (line.includes('=> not found')) throw new Error(`A library the binary needs is missing: ${line}`);
    const resolved = /=>\s+(\/\S+)/.exec(line)?.[1] ?? /^(\/\S+)\s+\(/.exec(line)?.[1];
    if (resolved) paths.push(resolved);
  }
  return [...new Set(paths)];
}

/** The binary at `/usr/bin/node` and exactly the libraries it loads, at the paths the loader looks for them. */
export async function nodeRuntimeFiles(nodeBinary: string): Promise<LayerFile[]> {
  const { stdout } = await run('ldd', [nodeBinary], { timeout: 30_000 });
  const libraries = parseLdd(stdout).map((library) => ({ path: library, source: library, mode: 0o755 }));
  return [{ path: '/usr/bin/node', source: nodeBinary, mode: 0o755 }, ...libraries];
}

/** Every folder above the files, as tar wants them listed before their contents. */
function parentFolders(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    for (let dir = path.posix.dirname(file); dir !== '/'; dir = path.posix.dirname(dir)) folders.add(dir);
  }
  return [...folders];
}

/** Writes one entry; a file read from disk is dereferenced (a library symlink becomes the library). */
async function addEntry(pack: tar.Pack, file: LayerFile | { path: string; folder: true; mode: number }, mtime: Date): Promise<void> {
  const name = file.path.replace(/^\//, '');
  const base = { mtime, uid: 0, gid: 0, uname: '', gname: '', mode: file.mode };
  if ('folder' in file) {
    await new Promise<void>((resolve, reject) => pack.entry({ ...base, name: `${name}/`, type: 'directory' }, (error) => (error ? reject(error) : resolve())));
    return;
  }
  if (file.data) {
    await new Promise<void>((resolve, reject) => pack.entry({ ...base, name, type: 'file' }, file.data!, (error) => (error ? reject(error) : resolve())));
    return;
  }
  const source = await fs.promises.realpath(file.source!);
  const { size } = await fs.promises.stat(source);
  await new Promise<void>((resolve, reject) => {
    const sink = pack.entry({ ...base, name, size, type: 'file' }, (error) => (error ? reject(error) : resolve()));
    pipeline(fs.createReadStream(source), sink).catch(reject);
  });
}

/**
 * A gzipped layer of the files (and their folders, plus any extra empty folders) written to
 * `target`: entries sorted by path, owned by root, stamped with the epoch; gzip without a time at a
 * fixed level. Answers the blob's digest and size and the uncompressed tar's digest (the diff_id).
 */
export async function writeLayer(
  files: readonly LayerFile[],
  folders: readonly { path: string; mode: number }[],
  target: string,
  { epoch }: Reproducible,
): Promise<BlobRef & { diffId: string }> {
  const mtime = new Date(epoch * 1000);
  const explicit = new Map(folders.map((folder) => [folder.path, folder.mode]));
  const entries = [
    ...parentFolders([...files.map((f) => f.path), ...folders.map((f) => f.path)])
      .filter((dir) => !explicit.has(dir))
      .map((dir) => ({ path: dir, folder: true as const, mode: 0o755 })),
    ...folders.map((folder) => ({ ...folder, folder: true as const })),
    ...files,
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const pack = tar.pack();
  const uncompressed = new HashingCounter();
  const compressed = new HashingCounter();
  const written = pipeline(pack, uncompressed, zlib.createGzip({ level: gzipLevel }), compressed, fs.createWriteStream(target));
  for (const entry of entries) await addEntry(pack, entry, mtime);
  pack.finalize();
  await written;
  return { digest: `sha256:${compressed.digest()}`, size: compressed.bytes, diffId: `sha256:${uncompressed.digest()}` };
}

export interface ImageSpec {
  /** Image name without tag, e.g. `warden`. */
  name: string;
  version: string;
  entrypoint: string[];
  env: string[];
  layer: BlobRef & { diffId: string; file: string };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const blobRef = (data: Buffer): BlobRef => ({ digest: `sha256:${createHash('sha256').update(data).digest('hex')}`, size: data.length });
const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;

/** The image config, manifest, index and Docker manifest.json of a one-layer amd64 Linux image. */
export function imageDocuments(spec: ImageSpec, { epoch }: Reproducible) {
  const labels = { 'org.opencontainers.image.version': spec.version, 'org.opencontainers.image.title': spec.name };
  const config = json({
    created: new Date(epoch * 1000).toISOString(),
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: spec.entrypoint, Env: spec.env, WorkingDir: '/', Labels: labels },
    rootfs: { type: 'layers', diff_ids: [spec.layer.diffId] },
    history: [{ created: new Date(epoch * 1000).toISOString(), created_by: `${spec.name} release ${spec.version}` }],
  });
  const configRef = blobRef(config);
  const manifest = json({
    schemaVersion: 2,
    mediaType: ociMediaTypes.manifest,
    config: { mediaType: ociMediaTypes.config, ...configRef },
    layers: [{ mediaType: ociMediaTypes.layer, digest: spec.layer.digest, size: spec.layer.size }],
    annotations: labels,
  });
  const manifestRef = blobRef(manifest);
  const tag = `${spec.name}:${spec.version}`;
  const index = json({
    schemaVersion: 2,
    mediaType: ociMediaTypes.index,
    manifests: [
      {
        mediaType: ociMediaTypes.manifest,
        ...manifestRef,
        platform: { architecture: 'amd64', os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': spec.version, 'io.containerd.image.name': `docker.io/library/${tag}` },
      },
    ],
  });
  const dockerManifest = json([{ Config: blobPath(configRef.digest), RepoTags: [tag], Layers: [blobPath(spec.layer.digest)] }]);
  return { config: { ...configRef, data: config }, manifest: { ...manifestRef, data: manifest }, index, dockerManifest };
}

/** The image layout as one uncompressed tarball (the layer inside is gzipped already), entries sorted. */
export async function writeImageLayout(spec: ImageSpec, target: string, reproducible: Reproducible): Promise<void> {
  const docs = imageDocuments(spec, reproducible);
  const layer = { path: `/${blobPath(spec.layer.digest)}`, source: spec.layer.file, mode: 0o644 };
  const files: LayerFile[] = [
    { path: '/oci-layout', data: json({ imageLayoutVersion: '1.0.0' }), mode: 0o644 },
    { path: '/index.json', data: docs.index, mode: 0o644 },
    { path: '/manifest.json', data: docs.dockerManifest, mode: 0o644 },
    { path: `/${blobPath(docs.config.digest)}`, data: docs.config.data, mode: 0o644 },
    { path: `/${blobPath(docs.manifest.digest)}`, data: docs.manifest.data, mode: 0o644 },
    layer,
  ];
  const mtime = new Date(reproducible.epoch * 1000);
  const pack = tar.pack();
  const written = pipeline(pack, fs.createWriteStream(target));
  const entries = [
    ...['/blobs', '/blobs/sha256'].map((dir) => ({ path: dir, folder: true as const, mode: 0o755 })),
    ...files,
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const entry of entries) await addEntry(pack, entry, mtime);
  pack.finalize();
  await written;
}
