/* global document, PerformanceObserver, setTimeout, requestAnimationFrame */
// The sign-in page's script loader (login.html): the page comes drawn, so its scripts (the webpack
// runtime, then src/login.tsx, which asks for React and the page) are added only once that drawing is
// on screen. Until then nothing but the HTML and the theme stylesheet is asked for, and the first paint
// shares the link with nothing. The build writes it inline with the scripts' addresses in a data
// attribute (public/index.html); the CSP lets it run by its hash (server/http/security.ts).
(() => {
  const script = document.currentScript;
  if (!script) return;
  let added = false;
  const addScripts = () => {
    if (added) return;
    added = true;
    for (const src of script.dataset.scripts.split(' ')) {
      const tag = document.createElement('script');
      tag.src = src;
      // Run in the order given, the runtime first.
      tag.async = false;
      document.head.append(tag);
    }
  };
  const types = typeof PerformanceObserver === 'undefined' ? [] : PerformanceObserver.supportedEntryTypes || [];
  if (types.includes('paint')) {
    // A paint entry is recorded when its frame is presented; a frame callback runs before the frame is drawn.
    const observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName('first-contentful-paint').length === 0) return;
      observer.disconnect();
      addScripts();
    });
    observer.observe({ type: 'paint', buffered: true });
    // A page that never paints (opened in a background tab) still loads.
    setTimeout(addScripts, 3000);
  } else {
    document.addEventListener('DOMContentLoaded', () => requestAnimationFrame(() => setTimeout(addScripts)));
  }
})();
