import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { chromiumLaunch } from '../test/e2e/playwright.config';
import { freePort, startWarden } from '../test/e2e/wardenProcess';

/**
 * What the sign-in page costs a first visit: the real server on the built dist/ (`npm run build`
 * first), /login loaded in Chromium, every JS and CSS response it fetched gzipped at level 9.
 * The same measure as the build's budget check (scripts/build.ts), taken from the wire.
 */
const kiB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-bench-bundle-'));
  const warden = await startWarden({ WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'warn' }, await freePort());
  const browser = await chromium.launch(chromiumLaunch);
  try {
    const page = await browser.newPage();
    const bodies: Promise<{ url: string; gzipped: number }>[] = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      bodies.push(response.body().then((body) => ({ url: new URL(response.url()).pathname, gzipped: gzipSync(body, { level: 9 }).length })));
    });
    await page.goto(`${warden.url}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const files = await Promise.all(bodies);

    console.log(`/login in Chromium: JS and CSS fetched, each gzipped at level 9`);
    for (const { url, gzipped } of files.sort((a, b) => b.gzipped - a.gzipped)) {
      console.log(`  ${url.padEnd(52)}${kiB(gzipped).padStart(12)}`);
    }
    const total = files.reduce((sum, file) => sum + file.gzipped, 0);
    console.log(`  ${'total'.padEnd(52)}${kiB(total).padStart(12)}   (${files.length} files; target ≤ 180 KiB)`);
  } finally {
    await browser.close();
    await warden.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
