import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, instancesListHandler } from '../../handlers/instancesHandlers';
import { aStatistics, statisticsHandler } from '../../handlers/statisticsHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancesPage'), 30_000);
jest.setTimeout(15_000);

function openInstances(statistics = statisticsHandler()) {
  const list = instancesListHandler();
  server.use(meHandler(admin), list.handler, allGroupsHandler(), statistics.handler);
  return { ...renderApp('/instances'), list, statistics, user: userEvent.setup() };
}

const figures = async () => within(await screen.findByRole('list', { name: 'Figures' }));

/** The column counts of every grid-template-columns the element's own CSS rules set, at every width. */
function gridColumnCounts(element: HTMLElement): number[] {
  const counts: number[] = [];
  const visit = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      // jsdom's rule objects are not instances of the window's CSS*Rule classes, nor do their
      // styles know grid properties by name: told apart by shape, read by property text.
      const styleRule = 'selectorText' in rule ? (rule as CSSStyleRule) : null;
      const template = styleRule?.style.getPropertyValue('grid-template-columns');
      if (styleRule && template && element.matches(styleRule.selectorText)) {
        counts.push(Number(/^repeat\((\d+),/.exec(template)?.[1]));
      } else if ('cssRules' in rule) {
        // Media queries and cascade layers hold rules of their own.
        visit(rule.cssRules as CSSRuleList);
      }
    }
  };
  for (const sheet of Array.from(document.styleSheets)) visit(sheet.cssRules);
  return counts;
}

const localDay = (at: Date) => `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;

describe('StatisticsStrip', () => {
  it('shows each figure as a link to the filtered list it counts', async () => {
    openInstances();
    const strip = await figures();
    const link = (name: string) => strip.findByRole('link', { name });

    expect(await link('Running: 4')).toHaveAttribute('href', '/instances?status=running');
    expect(await link('Stopped: 2')).toHaveAttribute('href', '/instances?status=stopped');
    expect(await link('Offline: 1')).toHaveAttribute('href', '/instances?status=offline');
    expect(await link('Health warnings: 1')).toHaveAttribute('href', '/instances?health=warn');
    expect(await link('Health errors: 1')).toHaveAttribute('href', '/instances?health=error');
    expect(await link('Backups failed in 24 h: 2')).toHaveAttribute(
      'href',
      `/backups?status=failed&from=${localDay(new Date(Date.now() - 86_400_000))}`,
    );
    expect(await link('Backup storage used: 12 GB')).toHaveAttribute('href', '/backups');
    expect(await link('Errors in logs in 24 h: 17')).toHaveAttribute('href', '/logs?level=error,fatal&range=24h');
  });

  it('lays the figures out in whole rows at every width, none alone on a row', async () => {
    openInstances();
    const list = await screen.findByRole('list', { name: 'Figures' });
    const cards = within(list).getAllByRole('listitem').length;
    expect(cards).toBe(8);
    const columns = gridColumnCounts(list);
    expect(columns.length).toBeGreaterThanOrEqual(2);
    for (const perRow of columns) expect([perRow, cards % perRow]).toEqual([perRow, 0]);
  });

  it('filters the list below by the figure followed', async () => {
    const { list, user, location } = openInstances();
    await user.click(await (await figures()).findByRole('link', { name: 'Stopped: 2' }));
    expect(location()).toBe('/instances?status=stopped');
    await waitFor(() => expect(list.last()).toMatchObject({ status: 'stopped' }));
  });

  it('takes the figures a pushed StatisticsChanged carries, without asking the server again', async () => {
    const { store, statistics } = openInstances();
    await (await figures()).findByRole('link', { name: 'Running: 4' });

    const next = aStatistics();
    next.instances.byStatus = { ...next.instances.byStatus, running: 5, stopped: 1 };
    next.logs = { ...next.logs, errors24h: 18 };
    act(() => {
      store.dispatch(hubEvent('StatisticsChanged', next, '2025-03-01T10:00:01.000Z'));
    });

    const strip = await figures();
    expect(await strip.findByRole('link', { name: 'Running: 5' })).toBeInTheDocument();
    expect(strip.getByRole('link', { name: 'Stopped: 1' })).toBeInTheDocument();
    expect(strip.getByRole('link', { name: 'Errors in logs in 24 h: 18' })).toBeInTheDocument();
    expect(statistics.seen).toHaveLength(1);
  });

  it('says when the figures could not be read, and reads them again on Retry', async () => {
    let fail = true;
    const { user } = openInstances(statisticsHandler(() => (fail ? problem(500, 'Internal Server Error') : aStatistics())));
    expect(await screen.findByText('Could not load the figures.')).toBeInTheDocument();

    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await (await figures()).findByRole('link', { name: 'Running: 4' })).toBeInTheDocument();
  });
});
