import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock';
import type { AppContext } from '../context';
import { insertOutboxMessage, recordDelivery } from '../db/outbox';
import type { Db } from '../db/schema';
import { normalizeEmail } from '../db/users';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The part of a nodemailer transport the mailer uses. */
export interface MailTransport {
  sendMail(mail: Mail & { from: string }): Promise<unknown>;
}

/**
 * Writes every e-mail to the outbox and, when SMTP is configured, delivers it in the background: a
 * slow or failing mail server neither delays nor fails the request, nor tells by its timing whether
 * an account exists. The outcome (sent, or the error) is recorded on the outbox row.
 */
export class Mailer {
  private readonly deliveries = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      from: string;
      transport: MailTransport | null;
      log: FastifyBaseLogger;
    },
  ) {}

  async send(mail: Mail): Promise<void> {
    const id = randomUUID();
    const message = { ...mail, to: normalizeEmail(mail.to) };
    await insertOutboxMessage(this.deps.db, { id, at: this.deps.clock(), ...message });
    const transport = this.deps.transport;
    if (!transport) return;
    const delivery = this.deliver(transport, id, message).finally(() => this.deliveries.delete(delivery));
    this.deliveries.add(delivery);
  }

  /** Waits for deliveries under way, so they can record their outcome before the store closes. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.deliveries]);
  }

  private async deliver(transport: MailTransport, id: string, mail: Mail): Promise<void> {
    const { db, from, log } = this.deps;
    try {
      await transport.sendMail({ from, ...mail });
      await recordDelivery(db, id, { sent: true });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn({ outboxId: id, err: message }, 'E-mail delivery failed');
      await recordDelivery(db, id, { sent: false, error: message }).catch((err: unknown) =>
        log.error({ outboxId: id, err }, 'Could not record the e-mail delivery failure'),
      );
    }
  }
}

// Generous but bounded, so shutting down never waits minutes for an unreachable mail server.
const smtpTimeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** Delivers through `url`, loading nodemailer (a large package) with the first e-mail rather than at every start. */
function smtpTransport(url: string): MailTransport {
  let transport: Promise<MailTransport> | undefined;
  return {
    async sendMail(mail) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({ url, ...smtpTimeouts }));
      return (await transport).sendMail(mail);
    },
  };
}

export function createMailer(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, log: FastifyBaseLogger): Mailer {
  const { smtpUrl, mailFrom, publicUrl } = ctx.config;
  return new Mailer({
    db: ctx.db,
    clock: ctx.clock,
    from: mailFrom ?? `Warden <warden@${new URL(publicUrl).hostname}>`,
    transport: smtpUrl ? smtpTransport(smtpUrl) : null,
    log,
  });
}
