import fp from 'fastify-plugin';
import { hubPath } from '../contracts/hub';

/** The moments of one start, in ms since the process began (performance.now()). */
export const startPhases = ['processUp', 'storeOpen', 'routesReady', 'listening', 'backgroundReady'] as const;
export type StartPhase = (typeof startPhases)[number];

export interface StartupStatus {
  status: 'starting' | 'ok' | 'failed';
  /** Work still running after the server began listening, in the order it runs. */
  pending: string[];
  /** Work that failed; the server keeps serving, and its log says why. */
  failed: string[];
  phases: Partial<Record<StartPhase, number>>;
}

/**
 * What a start still does after the server listens. A listening server answers /healthz and sign-in at
 * once; the rest (adopting running instances, recovering backups and scripts, the engine catalogue,
 * generating route validators) runs right after, named on /healthz until it finishes. Calls that need
 * the instances adopted wait for that part (`gate`) instead of seeing a half-started server.
 */
export class Startup {
  readonly phases: Partial<Record<StartPhase, number>> = {};
  private readonly pending: string[] = [];
  private readonly failed: string[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private readonly gating = new Set<Promise<unknown>>();

  /** Records when `phase` was reached (the first time only). */
  mark(phase: StartPhase): void {
    this.phases[phase] ??= Math.round(performance.now());
  }

  /**
   * Runs `steps` one after another in the background, each named as pending until it finishes. A step
   * that fails is reported to `onError` and the next ones still run. With `gate`, calls that need the
   * instances wait for all of them.
   */
  run(steps: [name: string, work: () => Promise<unknown> | unknown][], onError: (name: string, error: unknown) => void, { gate = false } = {}): Promise<void> {
    this.pending.push(...steps.map(([name]) => name));
    const chain = (async () => {
      for (const [name, work] of steps) {
        try {
          await work();
        } catch (error) {
          this.failed.push(name);
          onError(name, error);
        } finally {
          this.pending.splice(this.pending.indexOf(name), 1);
        }
      }
    })();
    this.running.add(chain);
    if (gate) this.gating.add(chain);
    void chain.finally(() => {
      this.running.delete(chain);
      this.gating.delete(chain);
      if (this.running.size === 0 && this.phases.listening !== undefined) this.mark('backgroundReady');
    });
    return chain;
  }

  /** Resolves when the steps that calls on instances need have finished (at once when there are none). */
  async gate(): Promise<void> {
    await Promise.all([...this.gating]);
  }

  /** True while gating steps run: a call that needs them should await `gate()`. */
  get gated(): boolean {
    return this.gating.size > 0;
  }

  /** Resolves when nothing runs in the background any more. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  status(): StartupStatus {
    const status = this.failed.length > 0 ? 'failed' : this.pending.length > 0 ? 'starting' : 'ok';
    return { status, pending: [...this.pending], failed: [...this.failed], phases: { ...this.phases } };
  }
}

/** What answers while a start finishes its background work: health, sign-in and the live connection. */
const answersAtOnce = ['/healthz', '/auth/', hubPath];

/** Makes calls that need the instances adopted wait for it while a start finishes (registered after the SPA). */
export const awaitStartup = fp<{ startup: Startup }>(async (app, { startup }) => {
  app.addHook('onRequest', async (request) => {
    if (startup.gated && !answersAtOnce.some((prefix) => request.url.startsWith(prefix))) await startup.gate();
  });
});
