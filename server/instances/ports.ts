import net from 'node:net';
import { portsInUse } from '../db/instances';
import type { Db } from '../db/schema';
import { HttpProblem } from '../http/problems';

/** Whether nothing listens on this loopback port right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Hands out loopback ports from WARDEN_INSTANCE_PORTS: the lowest ones no instance holds and
 * nothing else listens on. Allocation and the insert that records it run one at a time, so two
 * creations never get the same port.
 */
export class PortAllocator {
  private queue: Promise<unknown> = Promise.resolve();
  /** Ports held by scratch instances (verification, sandboxes), which the store does not know of. */
  private readonly reserved = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly range: { from: number; to: number },
    /** false for another host's range: nothing here tells whether a port of that machine is free. */
    private readonly probe = true,
  ) {}

  withPorts<T>(count: number, use: (ports: number[]) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => use(await this.pick(count)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ports for a scratch instance: no instance gets them until they are released. */
  reserve(count: number): Promise<number[]> {
    return this.withPorts(count, async (ports) => {
      for (const port of ports) this.reserved.add(port);
      return ports;
    });
  }

  release(ports: number[]): void {
    for (const port of ports) this.reserved.delete(port);
  }

  private async pick(count: number): Promise<number[]> {
    const taken = new Set([...(await portsInUse(this.db)), ...this.reserved]);
    const picked: number[] = [];
    for (let port = this.range.from; port <= this.range.to && picked.length < count; port++) {
      if (!taken.has(port) && (!this.probe || (await portIsFree(port)))) picked.push(port);
    }
    if (picked.length < count) {
      throw new PortsExhaustedError(this.range);
    }
    return picked;
  }
}

/**
 * Every port of WARDEN_INSTANCE_PORTS is held: a 503 naming the range, so whoever asked knows the
 * server (not their request) is short, and an admin knows which setting to widen.
 */
export class PortsExhaustedError extends HttpProblem {
  constructor(range: { from: number; to: number }) {
    super(503, `no free port in ${range.from}-${range.to}`, { title: 'No free instance port' });
  }
}
