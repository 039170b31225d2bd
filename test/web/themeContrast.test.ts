import { themes } from '../../src/theme/catalogue';
import { contrastRatio } from '../../src/theme/color';
import { primaryTextBackgrounds, themeVariables } from '../../src/theme/themeCss';

// WCAG 2.1 AA over the whole catalogue: the accent as text reaches 4.5:1 on every background it is
// drawn on, and text on a solid accent (buttons, selected rows) reaches 4.5:1.

const round = (ratio: number) => Math.round(ratio * 100) / 100;

describe.each(themes.map((t) => [t.name, t] as const))('%s', (_name, theme) => {
  const p = theme.palette;
  const vars = themeVariables(p);

  it('draws the accent as text at 4.5:1 or more on every background it is used on', () => {
    const text = vars['--w-primary-text'];
    // Listed as [background, ratio] so a failure names the background that falls short.
    const short = primaryTextBackgrounds(p)
      .filter((background) => contrastRatio(text, background) < 4.5)
      .map((background) => [background, round(contrastRatio(text, background))]);
    expect(short).toEqual([]);
    // The variables the stylesheet sets are the same backgrounds the check used.
    for (const name of ['--w-bg', '--w-surface', '--w-bg-subtle', '--w-bg-muted', '--w-primary-subtle', '--w-primary-muted']) {
      expect(primaryTextBackgrounds(p)).toContain(vars[name]);
    }
  });

  it('puts text on a solid accent at 4.5:1 or more', () => {
    expect(contrastRatio(vars['--w-primary-fg'], vars['--w-primary'])).toBeGreaterThanOrEqual(4.5);
  });

});

describe('the default theme', () => {
  it('darkens its green just enough to be legible on its light panels', () => {
    const aura = themes.find((t) => t.name === 'aura-light-green')!;
    const vars = themeVariables(aura.palette);
    // The panel (#f8fafc) is what the plain accent-on-white shade fell short on (4.43:1).
    expect(contrastRatio(vars['--w-primary-text'], '#f8fafc')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(vars['--w-primary-text'], vars['--w-primary-subtle'])).toBeGreaterThanOrEqual(4.5);
  });
});
