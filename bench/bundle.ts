import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { chromiumLaunch } from '../test/e2e/playwright.config';
import { freePort, startWarden } from '../test/e2e/wardenProcess';
import { median } from './lib/figures';

/**
 * What the sign-in page costs a first visit: the real server on the built dist/ (`npm run build`
 * first), /login loaded in Chromium, every JS and CSS response it fetched gzipped at level 9 (the same
 * measure as the build's budget check, scripts/build.ts, taken from the wire); then Lighthouse 12's
 * mobile performance audit of /login (its default: a mid-range phone on a slow 4G link, simulated),
 * the median of a few runs.
 */
const kiB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const lighthouseRuns = process.argv.includes('--quick') ? 1 : 5;

/** The element Lighthouse found largest, as its selector (the audit's first table's first node). */
function lcpElement(details: unknown): string {
  const table = (details as { items?: { items?: { node?: { selector?: string } }[] }[] } | undefined)?.items?.[0];
  return table?.items?.[0]?.node?.selector ?? 'unknown';
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'warden-bench-bundle-'));
  const warden = await startWarden({ WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'warn' }, await freePort());
  const debuggingPort = await freePort();
  const browser = await chromium.launch({ ...chromiumLaunch, args: [...chromiumLaunch.args, `--remote-debugging-port=${debuggingPort}`] });
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
    await page.close();

    console.log(`/login in Chromium: JS and CSS fetched, each gzipped at level 9`);
    for (const { url, gzipped } of files.sort((a, b) => b.gzipped - a.gzipped)) {
      console.log(`  ${url.padEnd(52)}${kiB(gzipped).padStart(12)}`);
    }
    const total = files.reduce((sum, file) => sum + file.gzipped, 0);
    console.log(`  ${'total'.padEnd(52)}${kiB(total).padStart(12)}   (${files.length} files; target ≤ 120 KiB)`);

    // Lighthouse is an ES module: loaded only here.
    const { default: lighthouse } = await import('lighthouse');
    const runs: { lcp: number; fcp: number; score: number; element: string }[] = [];
    for (let i = 0; i < lighthouseRuns; i++) {
      const result = await lighthouse(`${warden.url}/login`, { port: debuggingPort, output: 'json', logLevel: 'error', onlyCategories: ['performance'] });
      if (!result) throw new Error('Lighthouse returned no result');
      const { audits, categories } = result.lhr;
      runs.push({
        lcp: audits['largest-contentful-paint'].numericValue ?? Number.NaN,
        fcp: audits['first-contentful-paint'].numericValue ?? Number.NaN,
        score: (categories.performance.score ?? 0) * 100,
        element: lcpElement(audits['largest-contentful-paint-element']?.details),
      });
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`\nLighthouse ${lighthouseRuns === 1 ? '1 run' : `median of ${lighthouseRuns} runs`}, mobile (simulated slow 4G, 4× CPU slowdown), /login:`);
    console.log(`  performance ${median(runs.map((r) => r.score)).toFixed(0)}`);
    console.log(`  first contentful paint ${seconds(median(runs.map((r) => r.fcp)))}`);
    console.log(`  largest contentful paint ${seconds(median(runs.map((r) => r.lcp)))}   (target ≤ 1.5 s; runs ${runs.map((r) => seconds(r.lcp)).join(', ')})`);
    console.log(`  its element: ${[...new Set(runs.map((r) => r.element))].join(' | ')}`);
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
