import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AlignedData, Options } from 'uplot';
import type { Instance } from '../../../../contracts/instances';
import type { MetricSeries } from '../../../../contracts/statistics';
import { connectionChanged, hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, instanceServer, instancesListHandler } from '../../handlers/instancesHandlers';
import { aSeries, metricsHandler } from '../../handlers/statisticsHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

// jsdom has no canvas: uPlot's constructor is replaced by one that keeps what the chart hands it.
// What uPlot draws from that is covered in the browser (test/e2e/monitoring.spec.ts).
interface FakePlot {
  options: Options;
  data: AlignedData;
  setData: (data: AlignedData) => void;
  setSize: () => void;
  destroy: () => void;
}
const mockPlots: FakePlot[] = [];
jest.mock('uplot', () => ({
  __esModule: true,
  default: function FakeUPlot(options: Options, data: AlignedData) {
    const plot: FakePlot = {
      options,
      data,
      setData: (next) => {
        plot.data = next;
      },
      setSize: () => {},
      destroy: () => {},
    };
    mockPlots.push(plot);
    return plot;
  },
}));

const server = setupMsw();
beforeAll(() => Promise.all([import('../../../../src/features/instances/InstancePage'), import('../../../../src/features/monitoring/MetricChart')]), 30_000);
jest.setTimeout(20_000);
beforeEach(() => {
  mockPlots.length = 0;
});

const orders = anInstance({ id: 'i-1', name: 'orders', type: 'pg', status: 'running' });

/** Three samples 10 s apart ending a few seconds before the range asked ends. */
function connectionSeries(query: URLSearchParams): MetricSeries[] {
  const to = Date.parse(query.get('to')!);
  const at = [to - 25_000, to - 15_000, to - 5_000];
  return [
    aSeries('connections_total', [
      [at[0], 1],
      [at[1], 3],
      [at[2], 2],
    ]),
    aSeries('connections_active', [
      [at[0], 0],
      [at[1], 1],
      [at[2], 1],
    ]),
    aSeries('tps', [[at[2], 12.5]]),
  ];
}

function openInstance(metrics = metricsHandler(connectionSeries), instance: Instance = orders) {
  const fake = instanceServer(instance, { logs: [] });
  server.use(meHandler(admin), ...fake.handlers, instancesListHandler().handler, allGroupsHandler(), metrics.handler);
  return { ...renderApp(`/instances/${instance.id}`), metrics, user: userEvent.setup() };
}

const monitoring = async () => within(await screen.findByRole('region', { name: 'Monitoring' }));
const chart = async (name: string) => within(await (await monitoring()).findByRole('figure', { name }));
/** The plot whose first line is `label`. */
const plotOf = (label: string) => mockPlots.find((plot) => plot.options.series[1]?.label === label);
/** The value the legend shows beside a line's label. */
const legendValue = (figure: ReturnType<typeof within>, label: string) =>
  figure.getByText(label, { selector: 'dt' }).nextElementSibling?.textContent;

describe('MonitoringSection', () => {
  it('shows a loading state, then a chart per figure with its values in units and a text summary', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    openInstance(metricsHandler(connectionSeries, { until: held }));
    expect(await (await monitoring()).findByText('Loading metrics…')).toBeInTheDocument();
    release();

    const connections = await chart('Connections');
    expect(legendValue(connections, 'Total')).toBe('2');
    expect(legendValue(connections, 'Active')).toBe('1');
    expect(connections.getByText('Total: lowest 1, highest 3 in this range.')).toBeInTheDocument();
    expect(connections.getByText('Idle in transaction: no samples in this range.')).toBeInTheDocument();
    expect(legendValue(await chart('Transactions per second'), 'Commits and rollbacks')).toBe('12.5/s');
    // A chart whose lines have no sample yet says so instead of drawing an empty frame.
    expect((await chart('Cache hit ratio')).getByText('No samples in this range.')).toBeInTheDocument();

    await waitFor(() => expect(plotOf('Total')).toBeDefined());
    expect(plotOf('Total')!.data.slice(1)).toEqual([
      [1, 3, 2],
      [0, 1, 1],
      [null, null, null],
    ]);
    // The axis speaks in the chart's unit.
    const tpsAxis = plotOf('Commits and rollbacks')!.options.axes![1].values as (u: unknown, splits: number[]) => string[];
    expect(tpsAxis(null, [0, 0.5, 20])).toEqual(['0/s', '0.5/s', '20/s']);
  });

  it('shows the value under the pointer while hovering, with its time', async () => {
    openInstance();
    const connections = await chart('Connections');
    await waitFor(() => expect(plotOf('Total')).toBeDefined());
    const plot = plotOf('Total')!;
    act(() => {
      const setCursor = plot.options.hooks!.setCursor as ((u: unknown) => void)[];
      setCursor[0]({ cursor: { idx: 1 } });
    });
    expect(legendValue(connections, 'Total')).toBe('3');
    expect(connections.getByText(/^At \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/)).toBeInTheDocument();
  });

  it('draws the charts of an etcd instance', async () => {
    openInstance(
      metricsHandler((query) => [aSeries('keys', [[Date.parse(query.get('to')!) - 5000, 42]])]),
      anInstance({ id: 'i-2', name: 'config', type: 'etcd', status: 'running' }),
    );
    expect(legendValue(await chart('Keys'), 'Keys')).toBe('42');
    const titles = (await monitoring()).getAllByRole('figure').map((figure) => figure.querySelector('figcaption')?.textContent);
    expect(titles).toEqual(['Database size', 'Keys', 'Proposals', 'CPU', 'Memory']);
  });

  it('says there is nothing to show before the first sample', async () => {
    openInstance(metricsHandler(() => []), { ...orders, status: 'stopped' });
    const section = await monitoring();
    expect(await section.findByText('No samples yet')).toBeInTheDocument();
    expect(section.getByText('Samples are taken while the instance runs. Start it to see its figures here.')).toBeInTheDocument();
    expect(section.queryByRole('figure')).not.toBeInTheDocument();
  });

  it('offers a retry when the metrics cannot be read', async () => {
    let fail = true;
    const { user } = openInstance(metricsHandler((query) => (fail ? problem(500, 'Internal Server Error') : connectionSeries(query))));
    const section = await monitoring();
    expect(await section.findByText('Could not load the metrics.')).toBeInTheDocument();
    fail = false;
    await user.click(section.getByRole('button', { name: 'Retry' }));
    expect(legendValue(await chart('Connections'), 'Total')).toBe('2');
  });

  it('asks for the range picked, ending now, at a step that suits it', async () => {
    const { metrics, user } = openInstance();
    await chart('Connections');
    const asked = () => {
      const { from, to, step, names } = metrics.last();
      return { span: Date.parse(to) - Date.parse(from), step: Number(step), names, toNow: Date.now() - Date.parse(to) };
    };
    expect(asked()).toMatchObject({ span: 3_600_000, step: 10_000 });
    expect(asked().names.split(',')).toEqual(expect.arrayContaining(['connections_total', 'tps', 'cache_hit_ratio', 'cpu_percent', 'rss_bytes']));
    expect(asked().toNow).toBeLessThan(60_000);

    const section = await monitoring();
    for (const [label, span, step] of [
      ['24 hours', 86_400_000, 60_000],
      ['7 days', 7 * 86_400_000, 600_000],
      ['30 days', 30 * 86_400_000, 3_600_000],
    ] as const) {
      await user.click(section.getByRole('radio', { name: label }));
      await waitFor(() => expect(asked()).toMatchObject({ span, step }));
    }
    expect(section.getByRole('radio', { name: '30 days' })).toBeChecked();
    expect(metrics.seen).toHaveLength(4);
  });

  it('is live while connected: a pushed sample extends the charts of its instance only', async () => {
    const { store, metrics } = openInstance();
    const connections = await chart('Connections');
    expect((await monitoring()).getByText('Not live')).toBeInTheDocument();
    act(() => {
      store.dispatch(connectionChanged({ state: 'Connected' }));
    });
    expect((await monitoring()).getByText('Live')).toBeInTheDocument();
    await waitFor(() => expect(plotOf('Total')).toBeDefined());
    const [times] = plotOf('Total')!.data;
    const at = (times[times.length - 1] as number) + 10_000;

    act(() => {
      store.dispatch(hubEvent('MetricsAppended', { instanceId: 'i-other', at, values: { connections_total: 99 } }, 't'));
      store.dispatch(hubEvent('MetricsAppended', { instanceId: 'i-1', at, values: { connections_total: 4, connections_idle_in_tx: 1, tps: 3 } }, 't'));
    });

    // The store tells the screen of cache patches in a batch, a moment later.
    await waitFor(() => expect(legendValue(connections, 'Total')).toBe('4'));
    expect(legendValue(connections, 'Idle in transaction')).toBe('1');
    const plot = plotOf('Total')!;
    expect(plot.data[0]).toHaveLength(4);
    expect(plot.data[0][3]).toBe(at);
    expect(plot.data.slice(1).map((line) => line[3])).toEqual([4, null, 1]);
    // From the push alone: the server was asked once.
    expect(metrics.seen).toHaveLength(1);
  });

  it('does not claim to be live for a stopped instance, even while connected', async () => {
    const { store } = openInstance(metricsHandler(connectionSeries), { ...orders, status: 'stopped' });
    await chart('Connections');
    act(() => {
      store.dispatch(connectionChanged({ state: 'Connected' }));
    });
    const section = await monitoring();
    expect(section.getByText('Stopped — showing the last samples')).toBeInTheDocument();
    expect(section.queryByText('Live')).not.toBeInTheDocument();
  });
});
