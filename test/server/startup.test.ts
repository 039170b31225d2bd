import { Startup } from '../../server/startup';
import { addUser, cookieLogin, goodPassword, login, setup, type Harness } from './helpers';

/** A step that finishes when the test says so. */
function held() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Startup', () => {
  it('names each step as pending until it finishes, in order, then marks the background ready', async () => {
    const startup = new Startup();
    startup.mark('listening');
    const [first, second] = [held(), held()];

    const done = startup.run([['first', () => first.promise], ['second', () => second.promise]], () => undefined);
    expect(startup.status()).toMatchObject({ status: 'starting', pending: ['first', 'second'], failed: [] });
    expect(startup.status().phases.backgroundReady).toBeUndefined();

    first.release();
    await turn();
    expect(startup.status().pending).toEqual(['second']);

    second.release();
    await done;
    await turn();
    expect(startup.status()).toMatchObject({ status: 'ok', pending: [] });
    expect(startup.status().phases.backgroundReady).toBeGreaterThanOrEqual(startup.status().phases.listening!);
  });

  it('reports a failed step, runs the next ones, and says failed', async () => {
    const startup = new Startup();
    const errors: string[] = [];
    let ranAfter = false;

    await startup.run(
      [
        ['adopt', () => Promise.reject(new Error('store gone'))],
        ['recover', () => void (ranAfter = true)],
      ],
      (name, error) => errors.push(`${name}: ${(error as Error).message}`),
    );

    expect(errors).toEqual(['adopt: store gone']);
    expect(ranAfter).toBe(true);
    expect(startup.status()).toMatchObject({ status: 'failed', pending: [], failed: ['adopt'] });
  });

  it('gates only on the steps run with `gate`', async () => {
    const startup = new Startup();
    const [slow, gating] = [held(), held()];
    void startup.run([['catalogue', () => slow.promise]], () => undefined);
    expect(startup.gated).toBe(false);

    void startup.run([['instances', () => gating.promise]], () => undefined, { gate: true });
    expect(startup.gated).toBe(true);
    gating.release();
    await startup.gate();

    expect(startup.gated).toBe(false);
    expect(startup.status().pending).toEqual(['catalogue']);
    slow.release();
    await startup.settled();
    expect(startup.status().pending).toEqual([]);
  });
});

describe('a server that listens before its background work is done', () => {
  let h: Harness;
  let startup: Startup;
  beforeEach(async () => {
    startup = new Startup();
    h = await setup({ startup, supervise: false });
    await h.app.ready();
    await addUser(h.db, 'ops@example.com', 'admin');
  });
  afterEach(async () => {
    await h.close();
  });

  it('answers health and sign-in at once, and holds calls on instances until the instances are adopted', async () => {
    const adoption = held();
    void startup.run([['instances', () => adoption.promise]], () => undefined, { gate: true });

    const health = await h.app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'starting', pending: ['instances'] });
    expect((await login(h, { email: 'ops@example.com', password: goodPassword })).statusCode).toBe(200);
    const cookie = await cookieLogin(h, 'ops@example.com');

    let answered = false;
    const list = h.app.inject({ url: '/instances', headers: { cookie } }).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);

    adoption.release();
    expect((await list).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/healthz' })).json()).toMatchObject({ status: 'ok', pending: [] });
  });

  it('answers 503 on /healthz when a start-up step failed', async () => {
    await startup.run([['backups', () => Promise.reject(new Error('unreadable'))]], () => undefined);

    const health = await h.app.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'failed', failed: ['backups'] });
  });
});
