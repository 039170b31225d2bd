import { act, screen, waitFor, within } from '@testing-library/react';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aGroup, groupServer, groupsListHandler } from '../../handlers/groupsHandlers';
import { aStatistics, statisticsHandler } from '../../handlers/statisticsHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/groups/GroupPage'), 30_000);
jest.setTimeout(15_000);

/** One group's figures: 3 instances, 2 running, 1.5 GB; more running after each change. */
function groupFigures() {
  let running = 2;
  const handler = statisticsHandler((query) => {
    const figures = aStatistics();
    if (query.get('groupId') !== 'g-1') return figures;
    figures.instances = { ...figures.instances, total: 3, byStatus: { ...figures.instances.byStatus, running }, sizeBytes: 1_500_000_000 };
    return figures;
  });
  return { ...handler, runMore: () => (running += 1) };
}

describe('GroupTotals', () => {
  it("shows the group's instances, how many run and their size, and counts again when the figures change", async () => {
    const figures = groupFigures();
    server.use(meHandler(regular), groupsListHandler().handler, ...groupServer(aGroup({ id: 'g-1', name: 'payments' })).handlers, figures.handler);
    const { store } = renderApp('/groups/g-1');
    const instances = within(await screen.findByRole('region', { name: 'Instances' }));
    expect(await instances.findByText('3 instances · 2 running · 1.5 GB of data')).toBeInTheDocument();
    expect(figures.last()).toEqual({ groupId: 'g-1' });

    figures.runMore();
    act(() => {
      store.dispatch(hubEvent('StatisticsChanged', aStatistics(), 't'));
    });
    expect(await instances.findByText('3 instances · 3 running · 1.5 GB of data')).toBeInTheDocument();
    await waitFor(() => expect(figures.seen.filter((query) => query.get('groupId') === 'g-1')).toHaveLength(2));
  });

  it('counts the clusters among them and their members in all', async () => {
    const { handler } = statisticsHandler(() => {
      const figures = aStatistics();
      figures.instances = { ...figures.instances, total: 3, byStatus: { ...figures.instances.byStatus, running: 3 }, sizeBytes: 1_500_000_000, clusters: 1, members: 5 };
      return figures;
    });
    server.use(meHandler(regular), groupsListHandler().handler, ...groupServer(aGroup({ id: 'g-1', name: 'payments' })).handlers, handler);
    renderApp('/groups/g-1');
    const instances = within(await screen.findByRole('region', { name: 'Instances' }));
    expect(await instances.findByText('3 instances · 3 running · 1 cluster (5 members in all) · 1.5 GB of data')).toBeInTheDocument();
  });
});
