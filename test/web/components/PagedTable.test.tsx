import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { allGroupsHandler, anInstance } from '../handlers/instancesHandlers';
import { pageOf, requestLog, validationProblem } from '../handlers/pages';
import { aUser, rolesHandler } from '../handlers/usersHandlers';
import { setupMsw } from '../msw';
import { renderApp } from '../renderApp';

// Every paged list shows its pages through PagedTable: a page past the end, or one the API refuses,
// is said as such on the instances and users screens alike.

const server = setupMsw();
beforeAll(
  () => Promise.all([import('../../../src/features/instances/InstancesPage'), import('../../../src/features/admin/UsersPage')]),
  30_000,
);

const screens = [
  {
    name: 'instances',
    path: '/instances',
    table: 'Instances',
    rows: [anInstance({ id: 'i-1', name: 'orders' }), anInstance({ id: 'i-2', name: 'audit' })],
    extra: () => [allGroupsHandler()],
  },
  {
    name: 'users',
    path: '/admin/users',
    table: 'Users',
    rows: [aUser({ id: 'u-1', email: 'ada@example.com' }), aUser({ id: 'u-2', email: 'rob@example.com' })],
    extra: () => [rolesHandler()],
  },
];

/** The screen's list as the API answers it: two rows, any page past them empty with the real total, pages over 1,000,000 refused. */
function open(at: (typeof screens)[number], query: string) {
  const log = requestLog();
  server.use(
    meHandler(admin),
    ...at.extra(),
    http.get(at.path, ({ request }) => {
      log.record(request);
      const params = new URL(request.url).searchParams;
      const page = Number(params.get('page'));
      const pageSize = Number(params.get('pageSize'));
      if (page > 1_000_000) return validationProblem({ page: ['must be <= 1000000'] });
      const items: unknown[] = at.rows.slice((page - 1) * pageSize, page * pageSize);
      return HttpResponse.json(pageOf(items, { page, pageSize, total: at.rows.length }));
    }),
  );
  return { ...renderApp(`${at.path}${query}`), log, user: userEvent.setup() };
}

describe.each(screens)('the $name list', (at) => {
  it('says a page past the end is past it, never that the list is empty, and links to the last page', async () => {
    const { user, location, log } = open(at, '?page=50&sort=-createdAt');

    expect(await screen.findByText('Page 50 is past the end')).toBeInTheDocument();
    expect(screen.queryByText(/yet\.$/)).not.toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
    const link = screen.getByRole('link', { name: 'Go to page 1' });
    // Reachable by keyboard: a real link, followed with Enter.
    link.focus();
    await user.keyboard('{Enter}');

    await waitFor(() => expect(location()).toBe(`${at.path}?sort=-createdAt`));
    const table = within(await screen.findByRole('table', { name: at.table }));
    expect(table.getAllByRole('row')).toHaveLength(3);
    expect(screen.getByText('Page 1 of 1')).toBeInTheDocument();
    expect(log.last().page).toBe('1');
  });

  it('names the last page when there are several', async () => {
    open(at, '?page=9&pageSize=1');

    expect(await screen.findByText('Page 9 is past the end')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to page 2, the last' })).toHaveAttribute('href', `${at.path}?page=2&pageSize=1`);
  });

  it('shows a page number the API refuses with the range it takes, not as a failure to retry', async () => {
    open(at, '?page=999999999');

    expect(await screen.findByText('There is no page 999999999')).toBeInTheDocument();
    expect(screen.getByText('Page numbers run from 1 to 1,000,000.')).toBeInTheDocument();
    expect(screen.queryByText('The server did not answer as expected.')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to page 1' })).toHaveAttribute('href', at.path);
  });
});
