import { readFileSync } from 'node:fs';
import path from 'node:path';

const loader = readFileSync(path.join(__dirname, '../../src/afterFirstPaint.js'), 'utf8');
const scripts = ['/static/js/runtime.1.js', '/static/js/login.2.js'];

/** login.html's loader as the build writes it into <head>; it runs as it is added. */
function addLoader(): void {
  document.head.innerHTML = '';
  const script = document.createElement('script');
  script.dataset.scripts = scripts.join(' ');
  script.textContent = loader;
  document.head.append(script);
}

const added = () => [...document.head.querySelectorAll<HTMLScriptElement>('script[src]')].map((s) => ({ src: s.getAttribute('src'), async: s.async }));

type PaintCallback = (list: { getEntriesByName: (name: string) => unknown[] }) => void;

/** A PerformanceObserver that knows paint entries, and delivers the ones a test gives it. */
function observablePaints() {
  const observers: { callback: PaintCallback; connected: boolean }[] = [];
  class FakeObserver {
    static supportedEntryTypes = ['paint', 'largest-contentful-paint'];
    private readonly entry: { callback: PaintCallback; connected: boolean };
    constructor(callback: PaintCallback) {
      this.entry = { callback, connected: false };
      observers.push(this.entry);
    }
    observe() {
      this.entry.connected = true;
    }
    disconnect() {
      this.entry.connected = false;
    }
  }
  const paint = (name: string) => {
    for (const o of observers.filter((x) => x.connected)) o.callback({ getEntriesByName: (wanted) => (wanted === name ? [{ name }] : []) });
  };
  return { FakeObserver, paint, connected: () => observers.filter((o) => o.connected).length };
}

describe('src/afterFirstPaint.js', () => {
  const original = globalThis.PerformanceObserver;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    Object.defineProperty(globalThis, 'PerformanceObserver', { value: original, configurable: true, writable: true });
  });

  it("adds the page's scripts, in order, only once the first contentful paint is on screen", () => {
    const paints = observablePaints();
    Object.defineProperty(globalThis, 'PerformanceObserver', { value: paints.FakeObserver, configurable: true, writable: true });
    addLoader();
    expect(added()).toEqual([]);

    paints.paint('first-paint');
    expect(added()).toEqual([]);

    paints.paint('first-contentful-paint');
    expect(added()).toEqual(scripts.map((src) => ({ src, async: false })));
    expect(paints.connected()).toBe(0);

    // The fallback for a page that never paints adds nothing twice.
    jest.advanceTimersByTime(5_000);
    expect(added()).toHaveLength(scripts.length);
  });

  it('loads a page that never paints (a background tab) after three seconds', () => {
    const paints = observablePaints();
    Object.defineProperty(globalThis, 'PerformanceObserver', { value: paints.FakeObserver, configurable: true, writable: true });
    addLoader();
    jest.advanceTimersByTime(2_999);
    expect(added()).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(added().map((s) => s.src)).toEqual(scripts);
  });

  it('falls back to the frame after the document is parsed where paints cannot be observed', () => {
    Object.defineProperty(globalThis, 'PerformanceObserver', { value: undefined, configurable: true, writable: true });
    addLoader();
    expect(added()).toEqual([]);
    document.dispatchEvent(new Event('DOMContentLoaded'));
    jest.runAllTimers();
    expect(added().map((s) => s.src)).toEqual(scripts);
  });
});
