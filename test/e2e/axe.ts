import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * The serious and critical WCAG 2.1 A/AA violations axe finds on the page, one line per element with
 * what to fix. Colours are judged once they have settled: a dialog still fading in shows its text
 * blended with what lies under it, which reads as a contrast failure that no one ever sees. Endless
 * animations (spinners, the live dot) are left running.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity))
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  // Legacy mode runs axe in the page itself: the console has no frames to reach, and the default
  // opens a blank page for every run, which made it three times slower. Only violations are read.
  const { violations } = await new AxeBuilder({ page }).withTags(wcagTags).options({ resultTypes: ['violations'] }).setLegacyMode().analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map((node) => `${v.id} (${v.impact}): ${node.target.join(' ')} — ${v.help}${node.failureSummary ? ` [${node.failureSummary.replace(/\s+/g, ' ').slice(0, 240)}]` : ''}`),
    );
}
