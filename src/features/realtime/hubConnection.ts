import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { hubPath, keepAliveIntervalMs, reconnectDelaysMs, serverTimeoutMs, statefulReconnectBufferSize } from '../../../contracts/hub';

/** What the saga uses of a HubConnection: tests hand in a fake with the same shape. */
export interface HubConnectionLike {
  start(): Promise<void>;
  stop(): Promise<void>;
  invoke(method: string, ...args: unknown[]): Promise<unknown>;
  on(event: string, handler: (...args: unknown[]) => void): void;
  off(event: string): void;
  onreconnecting(callback: (error?: Error) => void): void;
  onreconnected(callback: (connectionId?: string) => void): void;
  onclose(callback: (error?: Error) => void): void;
}

export type HubFactory = () => HubConnectionLike;

/** How the official client is set up (SPEC §7 and §9): tests check it without opening a connection. */
export const hubClientOptions = {
  url: `${process.env.WARDEN_API_URL ?? ''}${hubPath}`,
  // The client offers stateful reconnect only through negotiate, so it is not skipped: the
  // negotiate answer carries the connection token a dropped socket resumes with.
  http: { transport: HttpTransportType.WebSockets, withCredentials: true },
  statefulReconnect: { bufferSize: statefulReconnectBufferSize },
} as const;

/** The official client: WebSockets only, credentials included, stateful reconnect with SPEC §9's buffer size. */
export const createSignalRConnection: HubFactory = () => {
  const connection = new HubConnectionBuilder()
    .withUrl(hubClientOptions.url, { ...hubClientOptions.http })
    .withStatefulReconnect({ ...hubClientOptions.statefulReconnect })
    .withAutomaticReconnect([...reconnectDelaysMs])
    .withServerTimeout(serverTimeoutMs)
    .withKeepAliveInterval(keepAliveIntervalMs)
    .configureLogging(process.env.NODE_ENV === 'production' ? LogLevel.Warning : LogLevel.Information)
    .build();
  return connection;
};
