import { useEffect, useState } from 'react';
import { themeLinkId } from '../../theme/themeStore';

/** Concrete colours for a canvas, which cannot read CSS variables itself. */
export interface ChartPalette {
  /** One per line, with a dash pattern each so lines differ by more than hue. */
  lines: { stroke: string; dash: number[]; border: 'solid' | 'dashed' | 'dotted' }[];
  axis: string;
  grid: string;
  cursor: string;
}

// The accent and the text colours reach 4.5:1 on every theme's background (themeContrast tests),
// so each line stands out from the page at least as well as text does.
const lineStyles = [
  { variable: 'primary-text', dash: [], border: 'solid' },
  { variable: 'fg', dash: [6, 4], border: 'dashed' },
  { variable: 'muted', dash: [2, 3], border: 'dotted' },
] as const;

function readPalette(): ChartPalette {
  const style = getComputedStyle(document.documentElement);
  const colour = (name: string, fallback: string) => style.getPropertyValue(`--w-${name}`).trim() || fallback;
  return {
    lines: lineStyles.map(({ variable, dash, border }) => ({ stroke: colour(variable, '#555'), dash: [...dash], border })),
    axis: colour('muted', '#555'),
    grid: colour('border-muted', '#ddd'),
    cursor: colour('fg', '#222'),
  };
}

/** The theme's chart colours, read again whenever another theme's stylesheet has loaded. */
export function useChartPalette(): ChartPalette {
  const [palette, setPalette] = useState(readPalette);
  useEffect(() => {
    const link = document.getElementById(themeLinkId);
    const reread = () => setPalette(readPalette());
    link?.addEventListener('load', reread);
    return () => link?.removeEventListener('load', reread);
  }, []);
  return palette;
}
