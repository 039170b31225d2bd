import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aPoint, graphsHandler } from '../../handlers/graphsHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { pickOption } from '../../pickOption';

const server = setupMsw();
// The screen is a lazy route with recharts in it: load its code once, before the tests time their steps.
beforeAll(() => import('../../../../src/features/graphs/InstanceCreationGraphPage'), 30_000);

// jsdom lays nothing out: give recharts' ResponsiveContainer a size so it draws the chart (text
// still measures 0 wide, so no tick is dropped for lack of room).
beforeEach(() => {
  const measure = HTMLElement.prototype.getBoundingClientRect;
  jest.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (this: HTMLElement) {
    if (!this.classList.contains('recharts-responsive-container')) return measure.call(this);
    return { width: 800, height: 320, top: 0, left: 0, right: 800, bottom: 320, x: 0, y: 0, toJSON: () => ({}) };
  });
});
afterEach(() => jest.restoreAllMocks());

const points = [aPoint('2025-03-01', 2, 1, 10), aPoint('2025-03-02', 0, 0, 10), aPoint('2025-03-03', 1, 2, 13)];

function openGraph(path = '/graphs/instance-creation', answer: Parameters<typeof graphsHandler>[0] = points) {
  const graph = graphsHandler(answer);
  server.use(meHandler(admin), graph.handler);
  const user = userEvent.setup();
  return { ...renderApp(path), graph, user };
}

/** The totals as label → value. */
const totals = () =>
  Object.fromEntries(
    screen
      .getAllByRole('term')
      .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
  );

const day = (date: Date) => date.toISOString().slice(0, 10);
const daysAgo = (days: number) => day(new Date(Date.now() - days * 86_400_000));

describe('InstanceCreationGraphPage', () => {
  it('asks for the last 30 days by day when the URL says nothing, and shows totals and the chart', async () => {
    const { graph } = openGraph();
    expect(await screen.findByText('Created in the range')).toBeInTheDocument();
    expect(graph.last()).toEqual({ from: daysAgo(29), to: daysAgo(0), bucket: 'day' });
    expect(totals()).toEqual({ 'Created in the range': '6', PostgreSQL: '3', etcd: '3', 'Created up to the end': '13' });
    expect(screen.getByRole('button', { name: 'Last 30 days' })).toHaveAttribute('aria-pressed', 'true');

    // The chart got the points: a tick per bucket, the series in the legend.
    const chart = screen.getByRole('figure', { name: 'Instances created per bucket, and created so far' });
    await waitFor(() => expect(within(chart).getByText('03/03/25')).toBeInTheDocument());
    expect(within(chart).getByText('03/01/25')).toBeInTheDocument();
    expect(within(chart).getAllByText(/^(PostgreSQL|etcd|Created so far)$/).map((item) => item.textContent)).toEqual([
      'PostgreSQL',
      'etcd',
      'Created so far',
    ]);
    // And the same numbers as a table.
    const table = screen.getByRole('table', { name: 'Instances created per bucket' });
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent).join(' ')),
    ).toEqual(['03/01/25 2 1 3 10', '03/02/25 0 0 0 10', '03/03/25 1 2 3 13']);
  });

  it('keeps the running count at zero until the first creation day, then steps up on that day', async () => {
    openGraph('/graphs/instance-creation?from=2025-03-01&to=2025-03-05', [
      aPoint('2025-03-01', 0, 0, 0),
      aPoint('2025-03-02', 0, 0, 0),
      aPoint('2025-03-03', 0, 0, 0),
      aPoint('2025-03-04', 2, 1, 3),
      aPoint('2025-03-05', 1, 0, 4),
    ]);
    const chart = await screen.findByRole('figure');
    await waitFor(() => expect(chart.querySelector('.recharts-line-curve')).not.toBeNull());
    // Every point the line's path passes through or bends towards, as [x, y] (y grows downwards).
    const path = chart.querySelector('.recharts-line-curve')!.getAttribute('d')!;
    const drawn = [...path.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map(([, x, y]) => [Number(x), Number(y)]);
    const [, zero] = drawn[0];
    // The first creation day's label sits under its bar's middle, where its point is.
    const firstDayX = Number(within(chart).getByText('03/04/25').getAttribute('x'));

    // Flat before that day (to within rounding of the same position), never under zero, up on it.
    expect(drawn.filter(([x, y]) => x < firstDayX - 0.5 && y !== zero)).toEqual([]);
    expect(drawn.filter(([, y]) => y > zero)).toEqual([]);
    expect(drawn.some(([x, y]) => Math.abs(x - firstDayX) < 0.5 && y < zero)).toBe(true);
  });

  it('reads the range, bucket and type from the URL and asks for exactly those', async () => {
    const { graph } = openGraph('/graphs/instance-creation?from=2025-01-01&to=2025-03-31&bucket=month&type=pg', [
      aPoint('2025-01-01', 4, 0, 4),
      aPoint('2025-02-01', 0, 0, 4),
      aPoint('2025-03-01', 3, 0, 7),
    ]);
    expect(await screen.findByText('Created in the range')).toBeInTheDocument();
    expect(graph.last()).toEqual({ from: '2025-01-01', to: '2025-03-31', bucket: 'month', type: 'pg' });
    expect(screen.getByLabelText('From')).toHaveValue('2025-01-01');
    expect(screen.getByLabelText('To')).toHaveValue('2025-03-31');
    expect(screen.getByRole('combobox', { name: 'Bucket' })).toHaveValue('month');
    expect(screen.getByRole('combobox', { name: 'Type' })).toHaveValue('pg');
    // One type: no per-type totals, and only its bars.
    expect(totals()).toEqual({ 'Created in the range': '7', 'Created up to the end': '7' });
    const chart = screen.getByRole('figure');
    await waitFor(() => expect(within(chart).getByText('02/01/25')).toBeInTheDocument());
    expect(within(chart).queryByText('etcd')).not.toBeInTheDocument();
  });

  it('puts each choice in the URL and asks the server again', async () => {
    const { graph, user, location } = openGraph('/graphs/instance-creation?from=2025-01-01&to=2025-03-31');
    await screen.findByText('Created in the range');

    await pickOption(user, screen.getByRole('combobox', { name: 'Bucket' }), 'By week');
    await waitFor(() => expect(location()).toBe('/graphs/instance-creation?from=2025-01-01&to=2025-03-31&bucket=week'));
    await waitFor(() => expect(graph.last()).toEqual({ from: '2025-01-01', to: '2025-03-31', bucket: 'week' }));

    await pickOption(user, screen.getByRole('combobox', { name: 'Type' }), 'etcd');
    await waitFor(() => expect(graph.last()).toEqual({ from: '2025-01-01', to: '2025-03-31', bucket: 'week', type: 'etcd' }));

    const today = new Date();
    const firstOfMonth11Ago = day(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 11, 1)));
    await user.click(screen.getByRole('button', { name: 'Last 12 months' }));
    await waitFor(() =>
      expect(location()).toBe(`/graphs/instance-creation?from=${firstOfMonth11Ago}&to=${day(today)}&bucket=month&type=etcd`),
    );
    await waitFor(() => expect(graph.last()).toEqual({ from: firstOfMonth11Ago, to: day(today), bucket: 'month', type: 'etcd' }));
    expect(screen.getByRole('button', { name: 'Last 12 months' })).toHaveAttribute('aria-pressed', 'true');

    await user.click(screen.getByRole('button', { name: 'Last 90 days' }));
    await waitFor(() => expect(graph.last()).toEqual({ from: daysAgo(89), to: day(today), bucket: 'week', type: 'etcd' }));
  });

  it('asks nothing for a range that ends before it starts', async () => {
    const { graph } = openGraph('/graphs/instance-creation?from=2025-03-01&to=2025-02-01');
    expect(await screen.findByText('The range ends before it starts')).toBeInTheDocument();
    expect(graph.seen).toHaveLength(0);
  });

  it('says when no instance was created in the range', async () => {
    openGraph('/graphs/instance-creation?from=2025-03-01&to=2025-03-02', [aPoint('2025-03-01', 0, 0, 4), aPoint('2025-03-02', 0, 0, 4)]);
    expect(await screen.findByText('No instances were created in this range.')).toBeInTheDocument();
    expect(totals()).toEqual({ 'Created in the range': '0', PostgreSQL: '0', etcd: '0', 'Created up to the end': '4' });
    expect(screen.queryByRole('figure')).not.toBeInTheDocument();
  });

  it('offers a retry when the graph cannot be read', async () => {
    let failures = 1;
    const { user, store } = openGraph('/graphs/instance-creation?from=2025-03-01&to=2025-03-03', () =>
      failures-- > 0
        ? problem(400, 'Bad Request', 'The range holds more than 1000 buckets.')
        : HttpResponse.json({ bucket: 'day', from: '2025-03-01', to: '2025-03-03', points }),
    );
    expect(await screen.findByText('Could not load the graph.')).toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ summary: 'Request failed', detail: 'The range holds more than 1000 buckets.' })]);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Created in the range')).toBeInTheDocument();
  });
});
