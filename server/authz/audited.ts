import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { recordAudit } from '../db/audit';
import { principalOf } from '../http/auth';
import { HttpProblem } from '../http/problems';

/** What a change is recorded as; `run` may fill in the target and detail as it learns them. */
export interface AuditNote {
  /** Dotted verb: `admin.users.create`, `groups.update` … */
  action: string;
  target: string | null;
  detail?: Record<string, unknown>;
}

/**
 * Runs one state-changing call and records who did what to which target, and whether it worked
 * (DESIGN §5 Audit). A refusal (an HttpProblem: 404, 409, a rule broken) is recorded as a failure
 * with its status and reason, then rethrown; an unexpected error is left to the error handler's log.
 */
export async function audited<T>(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  request: FastifyRequest,
  note: AuditNote,
  run: (note: AuditNote) => Promise<T>,
): Promise<T> {
  const write = (outcome: 'success' | 'failure', detail: Record<string, unknown> | undefined) =>
    recordAudit(ctx.db, {
      at: ctx.clock(),
      userId: principalOf(request).userId,
      action: note.action,
      target: note.target,
      outcome,
      detail,
      ip: request.ip ?? null,
    });
  let result: T;
  try {
    result = await run(note);
  } catch (error) {
    if (error instanceof HttpProblem) {
      await write('failure', {
        ...note.detail,
        status: error.status,
        reason: error.detail ?? error.title,
        ...(error.errors && { errors: error.errors }),
      });
    }
    throw error;
  }
  await write('success', note.detail);
  return result;
}
