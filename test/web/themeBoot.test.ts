import { readFileSync } from 'node:fs';
import path from 'node:path';
import { themes } from '../../src/theme/catalogue';

const bootScript = readFileSync(path.join(__dirname, '../../src/theme/themeBoot.js'), 'utf8');

/** The <head> of public/index.html as the build renders it; the boot script runs as it is added. */
function loadHead(): void {
  document.documentElement.classList.remove('dark');
  document.head.innerHTML = '<link id="theme-link" rel="stylesheet" href="/themes/aura-light-green.css">';
  const script = document.createElement('script');
  script.dataset.themes = themes.map((t) => t.name).join(' ');
  script.dataset.darkThemes = themes.filter((t) => t.palette.dark).map((t) => t.name).join(' ');
  script.textContent = bootScript;
  document.head.append(script);
}

const themeHref = () => document.getElementById('theme-link')?.getAttribute('href');

beforeEach(() => localStorage.clear());

describe('src/theme/themeBoot.js', () => {
  it('applies the stored theme before the app loads', () => {
    localStorage.setItem('theme', 'arya-orange');
    loadHead();
    expect(themeHref()).toBe('/themes/arya-orange.css');
    expect(document.documentElement).toHaveClass('dark');
  });

  it('keeps the default for a missing or unknown stored name', () => {
    loadHead();
    expect(themeHref()).toBe('/themes/aura-light-green.css');

    localStorage.setItem('theme', '../../evil');
    loadHead();
    expect(themeHref()).toBe('/themes/aura-light-green.css');
    expect(document.documentElement).not.toHaveClass('dark');
  });
});
