import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { formatDateTime } from '../../../../src/components/DateTime';
import { groupJoined } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { problem, setupMsw } from '../../msw';
import { deferred } from '../realtime/fakeHub';
import { renderAppWithHub } from '../realtime/renderAppWithHub';
import { debugHandler, outboxHandler, outboxMessage, serverInfo } from './debugHandlers';

const server = setupMsw();

/** The debug page of a signed-in admin, with a live connection up. */
async function openDebugPage() {
  const app = renderAppWithHub('/debug');
  // The first visit loads the lazy screen, which takes jest a while to transform.
  await screen.findByRole('heading', { level: 1, name: 'Debug' }, { timeout: 10_000 });
  await waitFor(() => expect(app.store.getState().realtime.connection).toBe('Connected'));
  return app;
}

const region = (name: string) => within(screen.getByRole('region', { name }));
/** The toast whose title is `summary`. */
const toast = async (summary: string) => (await screen.findByText(summary)).closest('[role="alert"], [role="status"]');

beforeEach(() => server.use(meHandler(admin), debugHandler().handler, outboxHandler([]).handler));

describe('Debug page: server', () => {
  it('shows the server facts: version, uptime, Node, store, hub connections and each engine', async () => {
    await openDebugPage();
    const serverPart = region('Server');

    expect(await serverPart.findByText('0.1.0')).toBeInTheDocument();
    expect(serverPart.getByText('1 d 2 h 3 min')).toBeInTheDocument();
    expect(serverPart.getByText('v20.19.2')).toBeInTheDocument();
    expect(serverPart.getByText('sqlite')).toBeInTheDocument();
    expect(serverPart.getByText('Hub connections').nextSibling).toHaveTextContent('3');
    expect(serverPart.getByText('Engine confinement').nextSibling).toHaveTextContent(/^Off\. bubblewrap is not installed/);
    expect(serverPart.getByText('Point-in-time recovery').nextSibling).toHaveTextContent('pgBackRest, S3 bucket https://127.0.0.1:9000/wal/warden');

    const engines = within(serverPart.getByRole('table', { name: 'Engines' })).getAllByRole('row').slice(1);
    expect(engines.map((row) => row.textContent)).toEqual([
      'PostgreSQLAvailable16.4',
      'etcdMissingetcd was not found: install the Debian package etcd-server',
    ]);
  });

  it('shows a loading state, then the facts', async () => {
    const answer = deferred();
    server.use(
      debugHandler({
        info: async () => {
          await answer.promise;
          return HttpResponse.json(serverInfo);
        },
      }).handler,
    );
    renderAppWithHub('/debug');
    expect(await screen.findByText('Loading server facts…', {}, { timeout: 10_000 })).toBeInTheDocument();

    answer.resolve();

    expect(await region('Server').findByText('v20.19.2')).toBeInTheDocument();
    expect(screen.queryByText('Loading server facts…')).not.toBeInTheDocument();
  });

  it('asks again on Refresh', async () => {
    let connections = 3;
    server.use(debugHandler({ info: () => HttpResponse.json({ ...serverInfo, hubConnections: connections }) }).handler);
    const user = userEvent.setup();
    await openDebugPage();
    const serverPart = region('Server');
    await waitFor(() => expect(serverPart.getByText('Hub connections').nextSibling).toHaveTextContent('3'));

    connections = 7;
    await user.click(serverPart.getByRole('button', { name: 'Refresh' }));

    await waitFor(() => expect(serverPart.getByText('Hub connections').nextSibling).toHaveTextContent('7'));
  });

  it('says why the facts could not be loaded, and tries again', async () => {
    let allowed = false;
    server.use(
      debugHandler({
        info: () => (allowed ? HttpResponse.json(serverInfo) : problem(403, 'Forbidden', 'Only admins may use /debug.')),
      }).handler,
    );
    const user = userEvent.setup();
    await openDebugPage();
    const serverPart = region('Server');

    expect(await serverPart.findByText('Could not load server facts.')).toBeInTheDocument();
    expect(await toast('Request failed')).toHaveTextContent('Only admins may use /debug.');

    allowed = true;
    await user.click(serverPart.getByRole('button', { name: 'Retry' }));

    expect(await serverPart.findByText('v20.19.2')).toBeInTheDocument();
    expect(serverPart.queryByText('Could not load server facts.')).not.toBeInTheDocument();
  });

  it('pings the server and shows the round trip', async () => {
    const debug = debugHandler();
    server.use(debug.handler);
    const user = userEvent.setup();
    await openDebugPage();

    await user.click(region('Server').getByRole('button', { name: 'Ping' }));

    const result = await screen.findByRole('status', { name: 'Ping result' });
    await waitFor(() => expect(result).toHaveTextContent(/^Round trip \d+ ms \(server time 2025-05-01T12:00:00.000Z\)$/));
    expect(debug.requests).toContainEqual({ action: 'ping' });
  });
});

describe('Debug page: live connection', () => {
  it('shows the connection state and joins no group itself', async () => {
    const app = await openDebugPage();
    const live = region('Live connection');

    expect(live.getByText('State').nextSibling).toHaveTextContent('Connected');
    expect(live.getByText('Last error').nextSibling).toHaveTextContent('None');
    expect(live.getByText('No groups joined.')).toBeInTheDocument();
    expect(app.latest().invoke).not.toHaveBeenCalled();
  });

  it('lists the groups pages hold, with their arguments and how many pages hold them', async () => {
    const app = await openDebugPage();
    act(() => {
      app.store.dispatch(groupJoined({ name: 'Instance', args: ['i-1'] }));
      app.store.dispatch(groupJoined({ name: 'Instance', args: ['i-1'] }));
      app.store.dispatch(groupJoined({ name: 'Logs', args: [null] }));
    });

    const rows = within(region('Live connection').getByRole('table', { name: 'Joined groups' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual(['Instance["i-1"]2 pages', 'Logs[null]1 page']);
  });

  it('shows the state and the error when the connection is lost', async () => {
    const app = await openDebugPage();
    act(() => app.latest().reconnecting(new Error('WebSocket closed with status code: 1006.')));

    const live = region('Live connection');
    await waitFor(() => expect(live.getByText('State').nextSibling).toHaveTextContent('Reconnecting'));
    expect(live.getByText('Last error').nextSibling).toHaveTextContent('WebSocket closed with status code: 1006.');
  });
});

describe('Debug page: test messages and events', () => {
  it('sends only a message with text, and not twice at once', async () => {
    const answer = deferred();
    server.use(
      debugHandler({
        broadcast: async () => {
          await answer.promise;
          return HttpResponse.json({ delivered: 'queued', to: 'me' }, { status: 202 });
        },
      }).handler,
    );
    const user = userEvent.setup();
    await openDebugPage();
    const part = region('Test message');
    const toMe = part.getByRole('button', { name: 'Send to me' });
    const toAll = part.getByRole('button', { name: 'Send to all' });
    expect(toMe).toBeDisabled();
    expect(toAll).toBeDisabled();

    await user.type(part.getByRole('textbox', { name: 'Message' }), '   ');
    expect(toMe).toBeDisabled();

    await user.type(part.getByRole('textbox', { name: 'Message' }), 'Hello');
    expect(toMe).toBeEnabled();
    await user.click(toMe);

    await waitFor(() => expect(toAll).toBeDisabled());
    expect(toMe).toBeDisabled();
    answer.resolve();
    await waitFor(() => expect(part.getByRole('textbox', { name: 'Message' })).toHaveValue(''));
  });

  it('broadcasts a DebugMessage to all, confirms it, and shows it when the hub delivers it', async () => {
    const user = userEvent.setup();
    const app = renderAppWithHub('/debug');
    // Installed after rendering: the handler pushes through the hub the app created.
    const debug = debugHandler({
      broadcast: (body) => {
        // The server pushes the message to every connection, this one included.
        if (body.action === 'broadcast') {
          app.latest().push('DebugMessage', { text: body.payload?.text, from: admin.email, sentAt: '2025-05-01T12:00:00.000Z' });
        }
        return HttpResponse.json({ delivered: 'queued', to: 'all' }, { status: 202 });
      },
    });
    server.use(debug.handler);
    await screen.findByRole('heading', { level: 1, name: 'Debug' }, { timeout: 10_000 });
    await waitFor(() => expect(app.store.getState().realtime.connection).toBe('Connected'));
    expect(region('Last 50 events').getByText('No events received yet.')).toBeInTheDocument();

    await user.type(region('Test message').getByRole('textbox', { name: 'Message' }), 'Deploy at noon');
    await user.click(region('Test message').getByRole('button', { name: 'Send to all' }));

    expect(await toast('Message sent')).toBeInTheDocument();
    expect(debug.requests).toContainEqual({ action: 'broadcast', event: 'DebugMessage', payload: { text: 'Deploy at noon' }, to: 'all' });
    expect(await toast(`Message from ${admin.email}`)).toHaveTextContent('Deploy at noon');

    const rows = within(region('Last 50 events').getByRole('table', { name: 'Received events' })).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(1);
    const [time, name, payload] = within(rows[0]).getAllByRole('cell');
    const at = app.store.getState().realtime.recent[0].at;
    expect(time.querySelector('time')).toHaveAttribute('dateTime', at);
    expect(time).toHaveTextContent(formatDateTime(at, { seconds: true }));
    expect(name).toHaveTextContent('DebugMessage');
    expect(payload).toHaveTextContent(
      JSON.stringify({ text: 'Deploy at noon', from: admin.email, sentAt: '2025-05-01T12:00:00.000Z' }),
    );
  });

  it('sends to me on Enter, and keeps the text when sending fails', async () => {
    const debug = debugHandler({ broadcast: () => problem(400, 'Bad Request', 'payload/text must NOT have more than 500 characters') });
    server.use(debug.handler);
    const user = userEvent.setup();
    await openDebugPage();
    const field = region('Test message').getByRole('textbox', { name: 'Message' });

    await user.type(field, 'Hi there{Enter}');

    expect(await screen.findByText('payload/text must NOT have more than 500 characters')).toBeInTheDocument();
    expect(debug.requests).toContainEqual({ action: 'broadcast', event: 'DebugMessage', payload: { text: 'Hi there' }, to: 'me' });
    expect(field).toHaveValue('Hi there');
    expect(screen.queryByText('Message sent')).not.toBeInTheDocument();
  });

  it('lists pushed events newest first', async () => {
    const app = await openDebugPage();
    act(() => {
      app.latest().push('InstanceCreated', { id: 'i-1' });
      app.latest().push('InstanceStatusChanged', { id: 'i-1', status: 'running' });
    });

    const rows = within(region('Last 50 events').getByRole('table', { name: 'Received events' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[1].textContent)).toEqual(['InstanceStatusChanged', 'InstanceCreated']);
  });
});

describe('Debug page: e-mail outbox', () => {
  it('lists the kept e-mails with their delivery and text', async () => {
    server.use(
      outboxHandler([
        outboxMessage(1),
        outboxMessage(2, { sent: true }),
        outboxMessage(3, { error: 'Connection refused' }),
      ]).handler,
    );
    const user = userEvent.setup();
    await openDebugPage();
    const outbox = region('E-mail outbox');

    const table = await outbox.findByRole('table', { name: 'E-mail outbox' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(1, 4).map((cell) => cell.textContent))).toEqual([
      ['user1@example.com', 'Confirm your e-mail 1', 'Not sent'],
      ['user2@example.com', 'Confirm your e-mail 2', 'Sent'],
      ['user3@example.com', 'Confirm your e-mail 3', 'Failed: Connection refused'],
    ]);

    const text = within(rows[0]).getByText('Open http://127.0.0.1:8080/auth/confirmEmail?userId=u1&code=abc');
    expect(text).not.toBeVisible();
    await user.click(within(rows[0]).getByText('Show'));
    expect(within(rows[0]).getByText('Open http://127.0.0.1:8080/auth/confirmEmail?userId=u1&code=abc')).toBeVisible();
    expect(within(outbox.getByRole('navigation', { name: 'Outbox pages' })).getByText('1–3 of 3')).toBeInTheDocument();
  });

  it('says so when no e-mail has been sent', async () => {
    await openDebugPage();
    expect(await region('E-mail outbox').findByText('No e-mail has been sent yet.')).toBeInTheDocument();
  });

  it('shows why the outbox could not be loaded', async () => {
    server.use(http.get('/admin/outbox', () => problem(404, 'Not Found')));
    await openDebugPage();
    const outbox = region('E-mail outbox');
    expect(await outbox.findByText('Could not load e-mail outbox.')).toBeInTheDocument();
    expect(outbox.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(await toast('Request failed')).toHaveTextContent('Not Found');
  });

  it('pages through a long outbox', async () => {
    const outbox = outboxHandler(Array.from({ length: 30 }, (_, i) => outboxMessage(i + 1)));
    server.use(outbox.handler);
    const user = userEvent.setup();
    const { router } = await openDebugPage();
    const part = region('E-mail outbox');
    const pager = within(await part.findByRole('navigation', { name: 'Outbox pages' }));
    expect(pager.getByText('Page 1 of 2')).toBeInTheDocument();
    expect(pager.getByRole('button', { name: 'Previous' })).toBeDisabled();

    await user.click(pager.getByRole('button', { name: 'Next' }));

    expect(await pager.findByText('Page 2 of 2')).toBeInTheDocument();
    await waitFor(() => expect(within(part.getByRole('table', { name: 'E-mail outbox' })).getAllByRole('row')).toHaveLength(6));
    expect(outbox.pagesAsked).toEqual([1, 2]);
    expect(router.state.location.search).toBe('?outboxPage=2');
    expect(pager.getByRole('button', { name: 'Next' })).toBeDisabled();
  });
});
