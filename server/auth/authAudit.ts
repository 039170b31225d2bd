import type { AppContext } from '../context';
import { recordAudit, type AuditEvent } from '../db/audit';
import type { ClientInfo } from './sessions';

/** Records an /auth call, now and from the caller's address. Never put a password, code or token in `detail`. */
export function auditAuth(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  client: ClientInfo,
  event: Omit<AuditEvent, 'at' | 'ip'>,
): Promise<void> {
  return recordAudit(ctx.db, { ...event, at: ctx.clock(), ip: client.ip });
}
