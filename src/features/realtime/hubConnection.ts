import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { hubPath, keepAliveIntervalMs, reconnectDelaysMs, serverTimeoutMs } from '../../../contracts/hub';

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

/** The official client, set up as SPEC §7 and §9 say: WebSockets only, no negotiation, credentials included. */
export const createSignalRConnection: HubFactory = () => {
  const connection = new HubConnectionBuilder()
    .withUrl(`${process.env.WARDEN_API_URL ?? ''}${hubPath}`, {
      skipNegotiation: true,
      transport: HttpTransportType.WebSockets,
      withCredentials: true,
    })
    .withAutomaticReconnect([...reconnectDelaysMs])
    .withServerTimeout(serverTimeoutMs)
    .withKeepAliveInterval(keepAliveIntervalMs)
    .configureLogging(process.env.NODE_ENV === 'production' ? LogLevel.Warning : LogLevel.Information)
    .build();
  return connection;
};
