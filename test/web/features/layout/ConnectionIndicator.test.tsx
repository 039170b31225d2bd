import { ChakraProvider } from '@chakra-ui/react';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { setupStore } from '../../../../src/app/store';
import { ConnectionIndicator } from '../../../../src/features/layout/ConnectionIndicator';
import type { ConnectionState } from '../../../../src/features/realtime/realtimeSlice';
import { system } from '../../../../src/theme/system';
import { admin } from '../../fixtures';
import { meHandler, sessionCheckHandler } from '../../handlers/authHandlers';
import { instanceScreensAtRest } from '../../handlers/instancesHandlers';
import { setupMsw } from '../../msw';
import { deferred } from '../realtime/fakeHub';
import { renderAppWithHub } from '../realtime/renderAppWithHub';

const server = setupMsw();

function renderIndicator(connection: ConnectionState, error: string | null = null) {
  const store = setupStore({ realtime: { connection, error, joined: {}, recent: [] } });
  render(
    <Provider store={store}>
      <ChakraProvider value={system}>
        <ConnectionIndicator />
      </ChakraProvider>
    </Provider>,
  );
  return store;
}

describe('ConnectionIndicator', () => {
  it.each([
    ['Connected', 'Live'],
    ['Connecting', 'Connecting…'],
    ['Reconnecting', 'Reconnecting…'],
    ['Disconnecting', 'Disconnecting…'],
    ['Disconnected', 'Offline'],
  ] as const)('names the %s state "%s", politely announced', (connection, label) => {
    renderIndicator(connection);
    const status = screen.getByRole('status', { name: `Live connection: ${label}` });
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(status).toHaveTextContent(label);
    expect(status).toHaveAttribute('title', label);
  });

  it('offers a retry only when offline, and says why in the tooltip', () => {
    renderIndicator('Disconnected', 'WebSocket failed to connect.');
    expect(screen.getByRole('status')).toHaveAttribute('title', 'Offline: WebSocket failed to connect.');
    expect(screen.getByRole('button', { name: 'Retry connection' })).toBeInTheDocument();
  });

  it.each(['Connected', 'Connecting', 'Reconnecting'] as const)('offers no retry while %s', (connection) => {
    renderIndicator(connection);
    expect(screen.queryByRole('button', { name: 'Retry connection' })).not.toBeInTheDocument();
  });
});

describe('ConnectionIndicator in the sidebar', () => {
  beforeEach(() => server.use(meHandler(admin), sessionCheckHandler(), ...instanceScreensAtRest()));

  const sidebarStatus = async () =>
    within(await screen.findByRole('navigation', { name: 'Main' })).getByRole('status', { name: /^Live connection: / });

  it('goes from Connecting… to Live, and shows Reconnecting… while the link recovers', async () => {
    const starting = deferred();
    const app = renderAppWithHub('/instances', (hub) => hub.start.mockReturnValue(starting.promise));
    const status = await sidebarStatus();
    expect(status).toHaveAccessibleName('Live connection: Connecting…');

    await act(async () => starting.resolve());
    expect(await screen.findByRole('status', { name: 'Live connection: Live' })).toBe(status);

    act(() => app.latest().reconnecting(new Error('lost')));
    expect(await screen.findByRole('status', { name: 'Live connection: Reconnecting…' })).toBeInTheDocument();
    act(() => app.latest().reconnected());
    expect(await screen.findByRole('status', { name: 'Live connection: Live' })).toBeInTheDocument();
  });

  it('shows Offline with a retry when the connection fails, and goes live after retrying', async () => {
    const user = userEvent.setup();
    const app = renderAppWithHub('/instances', (hub, index) => {
      if (index === 0) hub.start.mockRejectedValue(new Error('WebSocket failed to connect.'));
    });
    expect(await screen.findByRole('status', { name: 'Live connection: Offline' })).toBeInTheDocument();
    expect(await screen.findByText('Websocket connection failed')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Retry connection' }));

    expect(await screen.findByRole('status', { name: 'Live connection: Live' })).toBeInTheDocument();
    expect(app.createHub).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole('button', { name: 'Retry connection' })).not.toBeInTheDocument();
  });
});
