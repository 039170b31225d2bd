import type { CurrentUser } from '../../../../contracts/auth';
import type { HubEventName } from '../../../../contracts/hub';
import { setupStore, type RootState } from '../../../../src/app/store';
import type { HubConnectionLike } from '../../../../src/features/realtime/hubConnection';

/**
 * A HubConnection the test drives: start/stop/invoke are jest mocks, and the callbacks the saga
 * registers can be fired as the real client would fire them. Like the real client, stop() ends
 * with the close callbacks.
 */
export class FakeHub implements HubConnectionLike {
  readonly start = jest.fn<Promise<void>, []>(() => Promise.resolve());
  readonly stop = jest.fn<Promise<void>, []>(async () => this.close());
  readonly invoke = jest.fn<Promise<unknown>, [string, ...unknown[]]>(() => Promise.resolve(null));
  private readonly handlers = new Map<string, (...args: unknown[]) => void>();
  private readonly reconnectingCallbacks: ((error?: Error) => void)[] = [];
  private readonly reconnectedCallbacks: ((connectionId?: string) => void)[] = [];
  private readonly closeCallbacks: ((error?: Error) => void)[] = [];

  on(event: string, handler: (...args: unknown[]) => void) {
    this.handlers.set(event, handler);
  }
  off(event: string) {
    this.handlers.delete(event);
  }
  onreconnecting(callback: (error?: Error) => void) {
    this.reconnectingCallbacks.push(callback);
  }
  onreconnected(callback: (connectionId?: string) => void) {
    this.reconnectedCallbacks.push(callback);
  }
  onclose(callback: (error?: Error) => void) {
    this.closeCallbacks.push(callback);
  }

  /** The server pushes an event. */
  push(event: HubEventName, payload: unknown) {
    this.handlers.get(event)?.(payload);
  }
  /** The link dropped; the client starts reconnecting. */
  reconnecting(error?: Error) {
    for (const callback of this.reconnectingCallbacks) callback(error);
  }
  reconnected() {
    for (const callback of this.reconnectedCallbacks) callback('new-connection-id');
  }
  /** Closed for good: the server closed it, or the client gave up reconnecting (no error then). */
  close(error?: Error) {
    for (const callback of this.closeCallbacks) callback(error);
  }
  /** The hub methods invoked so far, as `Method(arg, …)`. */
  invoked() {
    return this.invoke.mock.calls.map(([method, ...args]) => `${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
  }
}

/** A promise the test settles when it wants. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Every hub the store's saga created, newest last. */
export function fakeHubFactory(configure: (hub: FakeHub, index: number) => void = () => {}) {
  const hubs: FakeHub[] = [];
  const createHub = jest.fn(() => {
    const hub = new FakeHub();
    configure(hub, hubs.length);
    hubs.push(hub);
    return hub;
  });
  return { hubs, createHub, latest: () => hubs[hubs.length - 1] };
}

export const signedIn = (user: CurrentUser): Partial<RootState> => ({ auth: { user, status: 'authenticated' } });

/**
 * The real store with its sagas, on a fake hub factory; `states()` lists every connection state
 * the store went through, in order.
 */
export function storeWithFakeHub(preloadedState?: Partial<RootState>, configure?: (hub: FakeHub, index: number) => void) {
  const factory = fakeHubFactory(configure);
  const store = setupStore(preloadedState, {
    navigate: jest.fn(),
    getLocation: () => ({ pathname: '/instances', search: '', hash: '' }),
    createHub: factory.createHub,
  });
  const seen: string[] = [store.getState().realtime.connection];
  store.subscribe(() => {
    const now = store.getState().realtime.connection;
    if (now !== seen[seen.length - 1]) seen.push(now);
  });
  return {
    ...factory,
    store,
    states: () => [...seen],
    connection: () => store.getState().realtime.connection,
    toasts: () => store.getState().ui.toasts.map(({ status, summary, detail }) => ({ status, summary, detail })),
  };
}
