import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { AuditEntry } from '../../../../contracts/users';
import { formatDateTime } from '../../../../src/components/DateTime';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { pageOf, requestLog } from '../../handlers/pages';
import { aUser, usersListHandler } from '../../handlers/usersHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { pickOption } from '../../pickOption';

beforeAll(() => import('../../../../src/features/audit/AuditPage'), 30_000);

const server = setupMsw();

const anEntry = (fields: Partial<AuditEntry> = {}): AuditEntry => ({
  id: 'a1',
  at: '2025-03-04T05:06:07.000Z',
  userId: 'u-ada',
  userEmail: 'ada@example.com',
  action: 'user.update',
  target: 'user:u-rob',
  targetName: null,
  targetLink: null,
  outcome: 'success',
  detail: null,
  ip: '127.0.0.1',
  ...fields,
});

const ada = aUser({ id: 'u-ada', email: 'ada@example.com', role: 'admin' });
const rob = aUser({ id: 'u-rob', email: 'rob@example.com' });

function openAudit(path = '/admin/audit', answer: () => Response = () => HttpResponse.json(pageOf([anEntry()], { total: 60 }))) {
  const log = requestLog();
  server.use(
    meHandler(admin),
    usersListHandler(() => pageOf([ada, rob])).handler,
    http.get('/admin/audit', ({ request }) => {
      log.record(request);
      return answer();
    }),
  );
  return { ...renderApp(path), audit: log, user: userEvent.setup() };
}

const table = () => screen.findByRole('table', { name: 'Audit entries' });

describe('AuditPage', () => {
  it('lists who did what to which target, with the outcome, and pages', async () => {
    const { audit } = openAudit();
    const rows = within(await table()).getAllByRole('row');
    expect(within(rows[1]).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      formatDateTime('2025-03-04T05:06:07.000Z'),
      'ada@example.com',
      'user.update',
      'user:u-rob',
      'Success',
      '127.0.0.1',
    ]);
    expect(screen.getByRole('link', { name: 'ada@example.com' })).toHaveAttribute('href', '/admin/users/u-ada');
    expect(audit.last()).toEqual({ page: '1', pageSize: '25' });
    expect(screen.getByRole('button', { name: /next/i })).toBeEnabled();
  });

  it('names each target beside its id, linked to its screen while it exists, and shows a gone one by its id', async () => {
    const entries = [
      anEntry({ id: 'a1', action: 'backups.restore', target: 'b-7', targetName: 'database backup of shop, 2025-03-01T02:00:00.000Z', targetLink: '/instances/i-1/backups/database' }),
      anEntry({ id: 'a2', action: 'groups.update', target: 'g-1', targetName: 'Payments', targetLink: '/groups/g-1' }),
      anEntry({ id: 'a3', action: 'instances.delete', target: 'i-gone' }),
    ];
    openAudit('/admin/audit', () => HttpResponse.json(pageOf(entries)));
    const rows = within(await table()).getAllByRole('row');

    const targetCell = (row: HTMLElement) => within(row).getAllByRole('cell')[3];
    expect(targetCell(rows[1])).toHaveTextContent('database backup of shop, 2025-03-01T02:00:00.000Zb-7');
    expect(within(targetCell(rows[1])).getByRole('link', { name: 'database backup of shop, 2025-03-01T02:00:00.000Z' })).toHaveAttribute(
      'href',
      '/instances/i-1/backups/database',
    );
    expect(within(targetCell(rows[2])).getByRole('link', { name: 'Payments' })).toHaveAttribute('href', '/groups/g-1');
    expect(within(targetCell(rows[2])).getByText('g-1')).toBeInTheDocument();
    expect(targetCell(rows[3])).toHaveTextContent(/^i-gone$/);
    expect(within(targetCell(rows[3])).queryByRole('link')).not.toBeInTheDocument();
  });

  it('asks for the filters in the URL, the "to" day included', async () => {
    const { audit } = openAudit('/admin/audit?userId=u-rob&action=user&target=inst-7&outcome=failure&from=2025-03-01&to=2025-03-02&page=2');
    await table();
    expect(audit.last()).toEqual({
      page: '2',
      pageSize: '25',
      userId: 'u-rob',
      action: 'user',
      target: 'inst-7',
      outcome: 'failure',
      from: new Date(2025, 2, 1).toISOString(),
      to: new Date(2025, 2, 3).toISOString(),
    });
    expect(screen.getByRole('searchbox', { name: 'Action' })).toHaveValue('user');
    expect(screen.getByRole('searchbox', { name: 'Target' })).toHaveValue('inst-7');
    expect(screen.getByLabelText('From')).toHaveValue('2025-03-01');
  });

  it('keeps a chosen filter in the URL and starts again at page 1', async () => {
    const { user, location, audit } = openAudit('/admin/audit?page=3');
    await table();
    await pickOption(user, screen.getByRole('combobox', { name: 'User' }), 'rob@example.com');
    await waitFor(() => expect(location()).toBe('/admin/audit?userId=u-rob'));
    await waitFor(() => expect(audit.last()).toEqual({ page: '1', pageSize: '25', userId: 'u-rob' }));
    await pickOption(user, screen.getByRole('combobox', { name: 'Outcome' }), 'Failure');
    await waitFor(() => expect(location()).toBe('/admin/audit?userId=u-rob&outcome=failure'));
  });

  it('says when nothing matches', async () => {
    openAudit('/admin/audit?action=nothing', () => HttpResponse.json(pageOf([])));
    expect(await screen.findByText('No entries match.')).toBeInTheDocument();
  });

  it('offers a retry when the list cannot be read', async () => {
    openAudit('/admin/audit', () => problem(500, 'Internal Server Error', 'The store is unreachable.'));
    expect(await screen.findByText('Could not load audit entries.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
