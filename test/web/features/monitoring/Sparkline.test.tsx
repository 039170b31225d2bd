import { render, screen } from '@testing-library/react';
import { InstanceSparkline, Sparkline, sparklinePath } from '../../../../src/features/monitoring/Sparkline';

// The list's sparkline: what its accessible name says, and where its stroke goes.

const minute = 60_000;
const from = Date.UTC(2030, 0, 2, 2, 5);
const to = from + 60 * minute;
const at = (index: number) => from + index * minute;

describe('Sparkline', () => {
  it('names the minimum, maximum and current value in the unit', () => {
    render(<Sparkline label="CPU over the last hour" unit="percent" from={from} to={to} step={minute} points={[[at(0), 1], [at(30), 12.25], [at(59), 3]]} />);
    expect(screen.getByRole('img')).toHaveAccessibleName('CPU over the last hour: min 1 %, max 12.3 %, now 3 %');
  });

  it('says "last" rather than "now" when the newest point is old', () => {
    render(<Sparkline label="CPU over the last hour" unit="percent" from={from} to={to} step={minute} points={[[at(0), 4], [at(20), 2]]} />);
    expect(screen.getByRole('img')).toHaveAccessibleName('CPU over the last hour: min 2 %, max 4 %, last 2 %');
  });

  it('draws one stroke through the points, ending in a dot at the newest', () => {
    const { container } = render(
      <Sparkline label="CPU" unit="percent" from={from} to={to} step={minute} width={100} height={20} points={[[at(0), 0], [at(1), 10], [at(59), 5]]} />,
    );
    // x runs from the first minute (2) to the last (98), y from 0 (18) to the highest value (2).
    expect(container.querySelector('path')).toHaveAttribute('d', 'M2.0 18.0 L3.6 2.0 M98.0 10.0');
    const dot = container.querySelector('circle')!;
    expect([dot.getAttribute('cx'), dot.getAttribute('cy')]).toEqual(['98', '10']);
  });

  it('shows a dash and no drawing without points', () => {
    const { container } = render(<Sparkline label="CPU" unit="percent" from={from} to={to} step={minute} points={[]} />);
    expect(container).toHaveTextContent('—');
    expect(screen.queryByRole('img')).toBeNull();
  });
});

describe('sparklinePath', () => {
  it('joins points a step apart and breaks the stroke over a gap', () => {
    const { d } = sparklinePath([[at(0), 1], [at(1), 1], [at(5), 1], [at(6), 1]], { from, to, step: minute, width: 100, height: 20 });
    expect(d.match(/[ML]/g)).toEqual(['M', 'L', 'M', 'L']);
  });

  it('draws a flat line of zeros along the bottom', () => {
    const { d } = sparklinePath([[at(0), 0], [at(1), 0]], { from, to, step: minute, width: 100, height: 20 });
    expect(d).toBe('M2.0 18.0 L3.6 18.0');
  });

  it('spreads a busy line over the whole height, not a few pixels at its top', () => {
    // CPU between 40 and 42 %: the lowest sits on the bottom (18), the highest on the top (2).
    const { d } = sparklinePath([[at(0), 40], [at(1), 42], [at(2), 41]], { from, to, step: minute, width: 100, height: 20 });
    expect(d).toBe('M2.0 18.0 L3.6 2.0 L5.3 10.0');
  });

  it('draws a steady busy line along the top', () => {
    const { d } = sparklinePath([[at(0), 30], [at(1), 30]], { from, to, step: minute, width: 100, height: 20 });
    expect(d).toBe('M2.0 2.0 L3.6 2.0');
  });
});

describe('InstanceSparkline', () => {
  const data = { name: 'cpu_percent' as const, unit: 'percent' as const, step: minute, from, to, items: [{ instanceId: 'i-1', points: [[at(59), 7]] as [number, number][] }] };

  it("draws the instance's item of the answer", () => {
    render(<InstanceSparkline data={data} instanceId="i-1" label="CPU over the last hour" />);
    expect(screen.getByRole('img')).toHaveAccessibleName('CPU over the last hour: min 7 %, max 7 %, now 7 %');
  });

  it('shows a dash for an instance the answer leaves out, and nothing before the answer', () => {
    const { container, rerender } = render(<InstanceSparkline data={data} instanceId="i-2" label="CPU" />);
    expect(container).toHaveTextContent('—');
    rerender(<InstanceSparkline data={undefined} instanceId="i-2" label="CPU" />);
    expect(container).toBeEmptyDOMElement();
  });
});
