/* global document, localStorage */
// Runs synchronously in <head>, right after the theme link, so the stored theme is in place
// before the first paint (src/theme/themeStore.ts does the same on a switch). The build writes it
// inline into each page (public/index.html), so the first paint waits for no request of its own;
// the CSP lets it run by its hash (server/http/security.ts). The valid names come from this script
// tag's data attributes, written at build time from src/theme/catalogue.ts; an unknown or missing
// stored name keeps the default theme the link already points at.
(() => {
  const script = document.currentScript;
  const link = document.getElementById('theme-link');
  if (!script || !link) return;
  const href = link.getAttribute('href');
  const folder = href.slice(0, href.lastIndexOf('/') + 1);
  let name = href.slice(folder.length, -'.css'.length);
  try {
    const stored = localStorage.getItem('theme');
    if (stored && stored !== name && script.dataset.themes.split(' ').includes(stored)) {
      name = stored;
      link.setAttribute('href', `${folder}${name}.css`);
    }
  } catch {
    // Storage refused: keep the default.
  }
  document.documentElement.classList.toggle('dark', script.dataset.darkThemes.split(' ').includes(name));
})();
