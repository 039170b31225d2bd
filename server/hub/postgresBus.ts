import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/schema';
import type { BusListener, EventBus, HubEvent } from './bus';

/*
 * The event bus of several servers sharing one PostgreSQL store (DESIGN §12): every event goes out
 * as a NOTIFY on one channel, and every server LISTENs on it, the publishing one too. PostgreSQL
 * delivers notifications in the order their transactions committed, the same order to every
 * listener, so all servers deliver all events in one order (and an instance's in the order they
 * happened). An event larger than a notification may carry waits in `hub_payloads` and the
 * notification carries its row's id; rows are deleted a minute later, when every listener has read it.
 */

export const hubChannel = 'warden_hub';
/** NOTIFY's payload must be shorter than 8000 bytes; a little room for the envelope. */
const notifyLimit = 7_900;
/** How long a large event's row stays for listeners to read it. */
const payloadKeepMs = 60_000;
/** The first wait before the listener connects again after losing its connection; doubled up to 5 s. */
const reconnectMs = 100;

type Envelope = { e: HubEvent } | { ref: number };

export interface PostgresBusOptions {
  url: string;
  /** The store: the table of large events, and the connection notifications are sent on. */
  db: Db;
  /** Told of what went wrong (the listener's connection lost, a notification not sent). */
  warn?: (message: string, error?: unknown) => void;
}

export class PostgresBus implements EventBus {
  private readonly listeners = new Set<BusListener>();
  private listener: pg.Client | null = null;
  private sending: Promise<void> = Promise.resolve();
  private receiving: Promise<void> = Promise.resolve();
  private closed = false;
  private retryMs = reconnectMs;
  private readonly ready: Promise<void>;

  constructor(private readonly options: PostgresBusOptions) {
    this.ready = this.listen();
  }

  /** Resolves once the first try to listen has ended: listening, or trying again after a wait. */
  started(): Promise<void> {
    return this.ready;
  }

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends the event to every server, this one included, in the order this server published.
   * Publishing never throws: when the store cannot be reached the event is delivered here only
   * (a browser on another server catches up by refetching when its connection comes back).
   */
  publish(event: HubEvent): void {
    this.sending = this.sending.then(async () => {
      if (this.closed) return;
      try {
        await this.notify(event);
      } catch (error) {
        this.options.warn?.('An event could not be sent to the other servers; delivered on this one only', error);
        this.deliver(event);
      }
    });
  }

  /** Stops listening once what was published has gone out. */
  async close(): Promise<void> {
    await this.sending;
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  private async notify(event: HubEvent): Promise<void> {
    const { db } = this.options;
    let text = JSON.stringify({ e: event } satisfies Envelope);
    if (Buffer.byteLength(text) > notifyLimit) {
      const row = await db.insertInto('hub_payloads').values({ body: JSON.stringify(event), created_at: new Date().toISOString() }).returning('id').executeTakeFirstOrThrow();
      text = JSON.stringify({ ref: row.id } satisfies Envelope);
      const expired = new Date(Date.now() - payloadKeepMs).toISOString();
      await db.deleteFrom('hub_payloads').where('created_at', '<', expired).execute();
    }
    await sql`select pg_notify(${hubChannel}, ${text})`.execute(db);
  }

  private deliver(event: HubEvent) {
    for (const listener of this.listeners) listener(event);
  }

  private async received(text: string | undefined) {
    if (text === undefined) return;
    try {
      const envelope = JSON.parse(text) as Envelope;
      if ('e' in envelope) return this.deliver(envelope.e);
      const row = await this.options.db.selectFrom('hub_payloads').select('body').where('id', '=', envelope.ref).executeTakeFirst();
      if (row) this.deliver(JSON.parse(row.body) as HubEvent);
    } catch (error) {
      this.options.warn?.('An event from another server could not be read', error);
    }
  }

  /** Connects and LISTENs; on losing the connection, connects again after a growing wait. */
  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'warden-hub' });
    // One at a time: an event read by reference must not be overtaken by the small one after it.
    client.on('notification', (message) => {
      this.receiving = this.receiving.then(() => this.received(message.payload));
    });
    client.on('error', () => {});
    client.on('end', () => {
      if (this.closed || this.listener !== client) return;
      this.listener = null;
      this.options.warn?.('The event bus lost its store connection; listening again');
      this.again();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${hubChannel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.warn?.('The event bus could not listen on the store; trying again', error);
      this.again();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.retryMs = reconnectMs;
  }

  private again() {
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5_000);
    setTimeout(() => void this.listen(), wait).unref();
  }
}
