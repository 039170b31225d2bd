/** Small sRGB helpers for deriving a theme's shades from its palette (#rrggbb in, #rrggbb out). */

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  const match = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!match) throw new Error(`Expected a #rrggbb colour, got '${hex}'`);
  const value = parseInt(match[1], 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function toHex(rgb: Rgb): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** `from` moved `amount` (0…1) of the way towards `to`. */
export function mix(from: string, to: string, amount: number): string {
  const a = parseHex(from);
  const b = parseHex(to);
  return toHex([0, 1, 2].map((i) => a[i] + (b[i] - a[i]) * amount) as Rgb);
}

function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1…21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** The candidate that reads best on `background`. */
export function mostReadable(background: string, candidates: readonly string[]): string {
  return candidates.reduce((best, c) => (contrastRatio(background, c) > contrastRatio(background, best) ? c : best));
}

/**
 * `color` pushed towards `towards` just far enough to reach `minRatio` against every one of
 * `backgrounds` (e.g. a pale amber accent darkened until it is legible as link text on the page,
 * on panels and on its own tinted badges).
 */
export function legibleOn(backgrounds: string | readonly string[], color: string, towards: string, minRatio = 4.5): string {
  const all = typeof backgrounds === 'string' ? [backgrounds] : backgrounds;
  // Fine steps: the first legible shade stays as close to the theme's own accent as possible.
  for (let step = 0; step <= 100; step += 1) {
    const candidate = mix(color, towards, step / 100);
    if (all.every((background) => contrastRatio(background, candidate) >= minRatio)) return candidate;
  }
  return towards;
}
