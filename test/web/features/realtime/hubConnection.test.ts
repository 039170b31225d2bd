import { HttpTransportType } from '@microsoft/signalr';
import { statefulReconnectBufferSize } from '../../../../contracts/hub';
import type { HubFactory } from '../../../../src/features/realtime/hubConnection';

// The official client resolves a relative URL only in a real browser: give it the API host.
let createSignalRConnection: HubFactory;
beforeAll(async () => {
  process.env.WARDEN_API_URL = 'http://localhost';
  ({ createSignalRConnection } = await import('../../../../src/features/realtime/hubConnection'));
});
afterAll(() => {
  delete process.env.WARDEN_API_URL;
});

/** What the built client holds, read from the official client's own (private) fields. */
interface BuiltClient {
  _statefulReconnectBufferSize: number;
  connection: { _options: { skipNegotiation?: boolean; transport: HttpTransportType; withCredentials: boolean; _useStatefulReconnect?: boolean } };
}

describe('the hub client (SPEC §9)', () => {
  it('negotiates stateful reconnect over WebSockets with a buffer of 100000, credentials included', () => {
    const client = createSignalRConnection() as unknown as BuiltClient;
    expect(statefulReconnectBufferSize).toBe(100_000);
    expect(client._statefulReconnectBufferSize).toBe(statefulReconnectBufferSize);
    expect(client.connection._options).toMatchObject({
      transport: HttpTransportType.WebSockets,
      withCredentials: true,
      _useStatefulReconnect: true,
    });
    // The client offers stateful reconnect only through negotiate.
    expect(client.connection._options.skipNegotiation).toBeFalsy();
  });
});
