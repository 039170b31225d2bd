import { PgRefusal } from '../engines/pgRoles';
import { HttpProblem, validationProblem } from './problems';

// What a PostgreSQL instance refuses, or a server that does not answer, as the problem a caller
// gets: shared by the routes that reach into an instance as its superuser (databases, roles, the
// owner's password).

const unreachableCodes = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03']);
function unreachable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (code !== undefined && unreachableCodes.has(code)) || /Connection terminated|timeout expired/i.test(message ?? '');
}

/**
 * An instance listed as running whose server does not answer (crashed, stopping, frozen) as the
 * problem a caller gets: its state is at fault, not the request. Null for any other error.
 */
export function unreachableProblem(error: unknown): HttpProblem | null {
  if (!unreachable(error)) return null;
  return new HttpProblem(409, `The instance did not answer (${(error as { code?: string }).code ?? 'connection lost'}): try again once it runs.`);
}

/** Runs a call to the instance, answering what it refuses as a problem (a field's when it names one). */
export async function pgProblem<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const silent = unreachableProblem(error);
    if (silent) throw silent;
    if (!(error instanceof PgRefusal)) throw error;
    throw error.field ? validationProblem({ [error.field]: [error.message] }) : new HttpProblem(error.status, error.message);
  }
}
