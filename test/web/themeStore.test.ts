import { applyTheme, readStoredTheme, themeHref, type ThemeStorage } from '../../src/theme/themeStore';

function memoryStorage(initial: Record<string, string> = {}): ThemeStorage & { items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

const refusingStorage: ThemeStorage = {
  getItem: () => {
    throw new DOMException('denied', 'SecurityError');
  },
  setItem: () => {
    throw new DOMException('full', 'QuotaExceededError');
  },
};

function pageWithThemeLink(): Document {
  const doc = document.implementation.createHTMLDocument('Warden');
  doc.head.innerHTML = '<link id="theme-link" rel="stylesheet" href="/themes/aura-light-green.css">';
  return doc;
}

describe('readStoredTheme', () => {
  it('returns the stored theme', () => {
    expect(readStoredTheme(memoryStorage({ theme: 'lara-dark-teal' }))).toBe('lara-dark-teal');
  });

  it('falls back to the default when nothing, or an unknown name, is stored', () => {
    expect(readStoredTheme(memoryStorage())).toBe('aura-light-green');
    expect(readStoredTheme(memoryStorage({ theme: 'no-such-theme' }))).toBe('aura-light-green');
    expect(readStoredTheme(memoryStorage({ theme: '' }))).toBe('aura-light-green');
  });

  it('falls back to the default when storage is unavailable', () => {
    expect(readStoredTheme(refusingStorage)).toBe('aura-light-green');
    expect(readStoredTheme(null)).toBe('aura-light-green');
  });
});

describe('applyTheme', () => {
  it('points the theme link at the theme stylesheet and stores the choice', () => {
    const doc = pageWithThemeLink();
    const storage = memoryStorage();

    expect(applyTheme('lara-dark-teal', doc, storage)).toBe('lara-dark-teal');

    expect(doc.getElementById('theme-link')?.getAttribute('href')).toBe('/themes/lara-dark-teal.css');
    expect(doc.querySelectorAll('link[rel="stylesheet"]')).toHaveLength(1);
    expect(storage.items.get('theme')).toBe('lara-dark-teal');
    expect(readStoredTheme(storage)).toBe('lara-dark-teal');
  });

  it('marks the page dark for dark themes only, so Chakra palettes follow', () => {
    const doc = pageWithThemeLink();
    applyTheme('arya-orange', doc, memoryStorage());
    expect(doc.documentElement.classList.contains('dark')).toBe(true);
    applyTheme('saga-blue', doc, memoryStorage());
    expect(doc.documentElement.classList.contains('dark')).toBe(false);
  });

  it('applies and stores the default for an unknown name', () => {
    const doc = pageWithThemeLink();
    const storage = memoryStorage({ theme: 'vela-green' });
    expect(applyTheme('no-such-theme', doc, storage)).toBe('aura-light-green');
    expect(doc.getElementById('theme-link')?.getAttribute('href')).toBe('/themes/aura-light-green.css');
    expect(storage.items.get('theme')).toBe('aura-light-green');
  });

  it('creates the theme link when the page has none', () => {
    const doc = document.implementation.createHTMLDocument('Warden');
    applyTheme('nova', doc, memoryStorage());
    const link = doc.head.querySelector('link#theme-link');
    expect(link?.getAttribute('rel')).toBe('stylesheet');
    expect(link?.getAttribute('href')).toBe(themeHref('nova'));
  });

  it('still switches the page when storage refuses to save', () => {
    const doc = pageWithThemeLink();
    expect(applyTheme('luna-amber', doc, refusingStorage)).toBe('luna-amber');
    expect(doc.getElementById('theme-link')?.getAttribute('href')).toBe('/themes/luna-amber.css');
  });
});
