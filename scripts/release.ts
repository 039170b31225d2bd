import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config';
import { buildReleases } from '../server/releases/buildReleases';

// `npm run release`: builds the command-line client's Windows and container releases of this
// checkout into <data dir>/releases. `--data-dir` overrides WARDEN_DATA_DIR; `--progress json`
// prints one JSON object a line (how the server follows a build it started).

const root = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'data-dir': { type: 'string' }, progress: { type: 'string', default: 'text' } },
    strict: true,
  });
  const json = values.progress === 'json';
  const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : loadConfig().dataDir;
  const epoch = process.env.SOURCE_DATE_EPOCH ? Number(process.env.SOURCE_DATE_EPOCH) : 0;
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got '${process.env.SOURCE_DATE_EPOCH}'`);

  const started = performance.now();
  const result = await buildReleases({
    root,
    dataDir,
    epoch,
    onProgress: (step, percent) =>
      console.log(json ? JSON.stringify({ step, percent }) : `${String(percent).padStart(3)}%  ${step}`),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (json) {
    console.log(JSON.stringify({ result: { ...result, seconds: Number(seconds) } }));
    return;
  }
  console.log(`\nClient ${result.version} ${result.cached ? 'was already built' : 'built'} in ${seconds} s → ${path.join(dataDir, 'releases')}`);
  for (const release of result.releases) {
    console.log(`${release.platform.padEnd(11)} ${release.fileName.padEnd(48)} ${(release.size / 1024 / 1024).toFixed(1).padStart(7)} MB  sha256 ${release.sha256}`);
  }
}

main().catch((error: unknown) => {
  console.error(`The release build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
