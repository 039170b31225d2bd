import {
  HttpClient,
  HttpResponse,
  HttpTransportType,
  HubConnectionBuilder,
  LogLevel,
  type HttpRequest,
  type HubConnection,
  type IHttpConnectionOptions,
} from '@microsoft/signalr';
import WebSocket from 'ws';
import { hubPath, reconnectDelaysMs } from '../contracts/hub';
import type { ApiClient } from './api';

/**
 * HTTP for the SignalR client through Node's fetch. Its own Node client loads tough-cookie and
 * fetch-cookie, packages a single-file build does not hold; with skipNegotiation it is hardly used.
 */
class FetchClient extends HttpClient {
  async send(request: HttpRequest): Promise<HttpResponse> {
    const response = await fetch(request.url ?? '', {
      method: request.method,
      headers: request.headers,
      body: request.content,
      signal: request.timeout ? AbortSignal.timeout(request.timeout) : undefined,
    });
    return new HttpResponse(response.status, response.statusText, await response.text());
  }
}

/**
 * The SignalR client fetches `ws` and `eventsource` in Node with a `require` bundlers cannot see,
 * unless webpack's `__non_webpack_require__` is there: for the moment of `build()` it is, answering
 * the `ws` this module imported (and no EventSource, which a WebSockets-only connection never uses),
 * so the same code runs from a checkout and from the single-file release.
 */
function withBundledModules<T>(build: () => T): T {
  const scope = globalThis as Record<string, unknown>;
  const names = ['__webpack_require__', '__non_webpack_require__'] as const;
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(scope, name)] as const);
  scope.__webpack_require__ = () => undefined;
  scope.__non_webpack_require__ = (name: string) => (name === 'ws' ? WebSocket : undefined);
  try {
    return build();
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(scope, name, descriptor);
      else delete scope[name];
    }
  }
}

/**
 * A connection to the server's hub with the bearer token, which the `ws` WebSocket sends as an
 * Authorization header (Node 20 has no WebSocket of its own). `WebSocket` is an option the SignalR
 * client reads but does not declare.
 */
export function hubConnection(api: ApiClient): HubConnection {
  const options: IHttpConnectionOptions & { WebSocket: unknown } = {
    transport: HttpTransportType.WebSockets,
    skipNegotiation: true,
    accessTokenFactory: () => api.freshToken(),
    httpClient: new FetchClient(),
    WebSocket,
  };
  return withBundledModules(() =>
    new HubConnectionBuilder()
      .withUrl(`${api.baseUrl}${hubPath}`, options)
      .withAutomaticReconnect([...reconnectDelaysMs])
      .configureLogging(LogLevel.None)
      .build(),
  );
}
