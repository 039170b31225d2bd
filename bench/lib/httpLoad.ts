import http from 'node:http';

// Closed-loop HTTP load over keep-alive connections: a fixed number of clients, each sending its next
// request as soon as the last answer's body is read, as a page of browsers refreshing would.

export interface Answer {
  ms: number;
  /** The proxy's x-served-by header: which server answered. */
  servedBy: string | undefined;
}

/** One GET on the agent's keep-alive connections, body read; throws unless it answers 200. */
export function get(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const ms = performance.now() - started;
        if (response.statusCode !== 200) {
          return reject(new Error(`GET ${url}: ${response.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`));
        }
        resolve({ ms, servedBy: response.headers['x-served-by'] as string | undefined });
      });
    });
    request.on('error', reject);
  });
}

export interface LoadFigures {
  /** Answers per second over the run. */
  perSecond: number;
  /** Each answer's time from request sent to body read, ms. */
  latencies: number[];
  /** The same for the paced probe requests. */
  probes: number[];
  /** Answers by the server that gave them (x-served-by), or 'direct'. */
  servedBy: Record<string, number>;
}

/**
 * A target under load: `clients` keep-alive connections for the load and one for a probe, kept
 * between runs so that every run after the first goes over warm connections.
 */
export class HttpLoad {
  private readonly agent: http.Agent;
  private readonly probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly baseUrl: string,
    private readonly clients: number,
    private readonly headers: Record<string, string>,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  }

  /**
   * `clients` loops of GET `path` for `seconds`; meanwhile one GET `probePath` every `probeEveryMs`
   * (or as soon as the last one answered, if later): what a light request waits for under this load.
   */
  async run(path: string, probePath: string, seconds: number, probeEveryMs: number): Promise<LoadFigures> {
    const latencies: number[] = [];
    const probes: number[] = [];
    const servedBy: Record<string, number> = {};
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const client = async () => {
      while (performance.now() < deadline) {
        const answer = await get(this.agent, this.baseUrl + path, this.headers);
        latencies.push(answer.ms);
        const by = answer.servedBy ?? 'direct';
        servedBy[by] = (servedBy[by] ?? 0) + 1;
      }
    };
    const probe = async () => {
      for (let next = started; next < deadline; next = Math.max(next + probeEveryMs, performance.now())) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        probes.push((await get(this.probeAgent, this.baseUrl + probePath)).ms);
      }
    };
    await Promise.all([...Array.from({ length: this.clients }, client), probe()]);
    return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies, probes, servedBy };
  }

  close() {
    this.agent.destroy();
    this.probeAgent.destroy();
  }
}
