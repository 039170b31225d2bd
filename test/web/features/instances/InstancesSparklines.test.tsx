import { screen, waitFor, within } from '@testing-library/react';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { allGroupsHandler, anInstance, instancesListHandler } from '../../handlers/instancesHandlers';
import { pageOf } from '../../handlers/pages';
import { sparklinesHandler } from '../../handlers/statisticsHandlers';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

// The Instances screen's CPU column: every row's line comes from one request for the page.

const server = setupMsw();
beforeAll(() => import('../../../../src/features/instances/InstancesPage'), 30_000);
jest.setTimeout(15_000);

const orders = anInstance({ id: 'i-1', name: 'orders', status: 'running' });
const audit = anInstance({ id: 'i-2', name: 'audit', type: 'etcd', status: 'stopped' });
const events = anInstance({ id: 'i-3', name: 'events', status: 'running' });

it("draws each row's CPU over the last hour from one request naming the page's instances", async () => {
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const sparklines = sparklinesHandler((id) =>
    id === 'audit' || id === 'i-2' ? [] : [[now - 2 * 60_000, id === 'i-1' ? 1 : 20], [now - 60_000, 12], [now, id === 'i-1' ? 3 : 4]],
  );
  server.use(meHandler(admin), instancesListHandler(() => pageOf([orders, audit, events])).handler, allGroupsHandler([]), sparklines.handler);
  renderApp('/instances');

  const table = within(await screen.findByRole('table', { name: 'Instances' }, { timeout: 5000 }));
  expect(table.getByRole('columnheader', { name: 'CPU (1 h)' })).toBeInTheDocument();
  const row = (name: string) => within(table.getByRole('link', { name }).closest('tr') as HTMLElement);
  await waitFor(() => expect(row('orders').getByRole('img')).toHaveAccessibleName('CPU over the last hour: min 1 %, max 12 %, now 3 %'));
  expect(row('events').getByRole('img')).toHaveAccessibleName('CPU over the last hour: min 4 %, max 20 %, now 4 %');
  // A stopped instance without samples: a dash, no drawing.
  expect(row('audit').queryByRole('img')).toBeNull();
  expect(row('audit').getAllByRole('cell').at(-1)).toHaveTextContent('—');

  expect(sparklines.seen).toHaveLength(1);
  expect(sparklines.last()).toEqual({ ids: 'i-1,i-2,i-3', name: 'cpu_percent' });
});
