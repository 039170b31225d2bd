import { once } from 'node:events';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { nowMs } from './monotonicClock';

// Many raw WebSocket clients in a worker thread, so that receiving does not compete with the
// server and the publisher on the main thread's event loop.

export type ListenerRequest =
  /**
   * Opens one socket per cookie (null: none) as a named group; `signalr` does the hub handshake first.
   * `origin` is sent as a browser's page would: the hub refuses the session cookie without it.
   */
  | { kind: 'connect'; group: string; url: string; cookies: (string | null)[]; signalr: boolean; origin?: string }
  /** Starts counting for a group: the reply comes once each of its sockets has received `events` events, or at the timeout. */
  | { kind: 'arm'; group: string; events: number; timeoutMs: number }
  /** Closes every group's sockets. */
  | { kind: 'close' };

export interface Delivery {
  expected: number;
  delivered: number;
  /** When the last socket received its last event (monotonic ms). */
  lastReceivedAt: number;
  /** Receive time minus the publish time carried in the payload. */
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export type ListenerReply =
  | { kind: 'connected' }
  | { kind: 'armed' }
  | ({ kind: 'delivered' } & Delivery)
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/** What every published payload carries, so that any listener can compute its latency. */
export interface TimedPayload {
  sentAtMs: number;
}

export class Listeners {
  // tsx's hooks do not reach worker threads by themselves on Node 20.
  private readonly worker = new Worker(path.join(__dirname, 'listenersWorker.ts'), {
    execArgv: ['--require', require.resolve('tsx/cjs')],
  });

  async connect(group: string, url: string, cookies: (string | null)[], signalr: boolean, origin?: string): Promise<void> {
    await this.request({ kind: 'connect', group, url, cookies, signalr, origin });
  }

  /** Arms a group, runs `publish`, and answers its deliveries with the wall time since publishing began. */
  async measure(
    group: string,
    events: number,
    publish: () => Promise<void>,
    timeoutMs = 20_000,
  ): Promise<Delivery & { wallMs: number }> {
    await this.request({ kind: 'arm', group, events, timeoutMs });
    // Listen before publishing: the reply may arrive while publish() is still awaiting.
    const done = this.reply();
    const startedAt = nowMs();
    await publish();
    const delivery = (await done) as Delivery;
    return { ...delivery, wallMs: delivery.lastReceivedAt - startedAt };
  }

  async close(): Promise<void> {
    await this.request({ kind: 'close' });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private async request(request: ListenerRequest): Promise<ListenerReply> {
    const reply = this.reply();
    this.worker.postMessage(request);
    return reply;
  }

  private async reply(): Promise<ListenerReply> {
    const [reply] = (await once(this.worker, 'message')) as [ListenerReply];
    if (reply.kind === 'failed') throw new Error(reply.message);
    return reply;
  }
}
