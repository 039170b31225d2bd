import { parentPort } from 'node:worker_threads';
import WebSocket from 'ws';
import { keepAliveIntervalMs } from '../../contracts/hub';
import type { ListenerReply, ListenerRequest, TimedPayload } from './listeners';
import { nowMs } from './monotonicClock';

// The worker side of Listeners: raw `ws` clients. Against Warden they speak the SignalR JSON hub
// protocol (handshake, then Invocation frames ending with the record separator); against a plain
// server each frame is the bare payload. Either way each frame is parsed in full, as a browser would.

const port = parentPort!;
const recordSeparator = '\u001e';
const handshake = `{"protocol":"json","version":1}${recordSeparator}`;
const ping = `{"type":6}${recordSeparator}`;

const groups = new Map<string, WebSocket[]>();
let round: Round | null = null;

// Like the official client, hub sockets ping every 15 s: the hub closes a client silent for 30 s.
const hubSockets = new Set<WebSocket>();
setInterval(() => {
  for (const socket of hubSockets) if (socket.readyState === WebSocket.OPEN) socket.send(ping);
}, keepAliveIntervalMs).unref();

class Round {
  private readonly counts: Int32Array;
  private readonly latencies: Float64Array;
  private filled = 0;
  private completeSockets = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly group: string,
    private readonly events: number,
    timeoutMs: number,
  ) {
    const sockets = groups.get(group)?.length ?? 0;
    this.counts = new Int32Array(sockets);
    this.latencies = new Float64Array(sockets * events);
    this.timer = setTimeout(() => this.finish(), timeoutMs);
  }

  receive(socketIndex: number, payload: TimedPayload) {
    const receivedAt = nowMs();
    if (this.filled < this.latencies.length) this.latencies[this.filled++] = receivedAt - payload.sentAtMs;
    if (++this.counts[socketIndex] === this.events && ++this.completeSockets === this.counts.length) this.finish(receivedAt);
  }

  private finish(lastReceivedAt = nowMs()) {
    clearTimeout(this.timer);
    round = null;
    const sorted = this.latencies.subarray(0, this.filled).sort();
    const percentile = (p: number) => (sorted.length === 0 ? NaN : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]);
    reply({
      kind: 'delivered',
      expected: this.latencies.length,
      delivered: this.filled,
      lastReceivedAt,
      latencyP50Ms: percentile(0.5),
      latencyP99Ms: percentile(0.99),
    });
  }
}

function reply(message: ListenerReply) {
  port.postMessage(message);
}

/** Opens one socket; with `signalr` it resolves once the hub has accepted the handshake. */
function open(group: string, url: string, cookie: string | null, signalr: boolean, index: number, origin?: string): Promise<WebSocket> {
  const receive = (payload: TimedPayload) => {
    if (round?.group === group) round.receive(index, payload);
  };
  const socket = new WebSocket(url, { origin, ...(cookie ? { headers: { cookie } } : {}) });
  return new Promise((resolve, reject) => {
    let ready = false;
    socket.once('unexpected-response', (request, response) => {
      request.destroy();
      reject(new Error(`connecting to ${url} answered HTTP ${response.statusCode}`));
    });
    socket.on('error', reject);
    socket.once('open', () => {
      if (!signalr) {
        ready = true;
        resolve(socket);
      } else socket.send(handshake);
    });
    socket.on('message', (data) => {
      const text = data.toString();
      if (!ready) {
        if (text !== `{}${recordSeparator}`) return reject(new Error(`handshake refused: ${text}`));
        ready = true;
        hubSockets.add(socket);
        socket.once('close', () => hubSockets.delete(socket));
        return resolve(socket);
      }
      if (!signalr) return receive(JSON.parse(text));
      for (const record of text.slice(0, -1).split(recordSeparator)) {
        const message = JSON.parse(record);
        // Pings (type 6) and anything else are not events.
        if (message.type === 1) receive(message.arguments[0]);
      }
    });
  });
}

async function connect(group: string, url: string, cookies: (string | null)[], signalr: boolean, origin?: string) {
  const sockets: WebSocket[] = [];
  groups.set(group, sockets);
  // A bounded number of handshakes in flight, like browsers reconnecting after a deploy.
  const batch = 100;
  for (let start = 0; start < cookies.length; start += batch) {
    const batchCookies = cookies.slice(start, start + batch);
    sockets.push(...(await Promise.all(batchCookies.map((cookie, i) => open(group, url, cookie, signalr, start + i, origin)))));
  }
}

async function closeAll() {
  const sockets = [...groups.values()].flat();
  groups.clear();
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve(undefined);
          socket.once('close', resolve);
          socket.close(1000);
          // A peer that never answers the close handshake must not hold the bench up.
          setTimeout(() => socket.terminate(), 2000).unref();
        }),
    ),
  );
}

port.on('message', async (request: ListenerRequest) => {
  try {
    switch (request.kind) {
      case 'connect':
        await connect(request.group, request.url, request.cookies, request.signalr, request.origin);
        return reply({ kind: 'connected' });
      case 'arm':
        round = new Round(request.group, request.events, request.timeoutMs);
        return reply({ kind: 'armed' });
      case 'close':
        await closeAll();
        return reply({ kind: 'closed' });
    }
  } catch (error) {
    reply({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});
