import type { Problem } from '../contracts/problem';

/** Exit codes scripts rely on: 0 ok, 1 failure (API, network, checksum), 2 usage. */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

/** A failure the client explains in one message and ends with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A wrong argument or flag value: a usage error (exit 2), like commander's own. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, exitCodes.usage);
  }
}

/** An answer of the API that is not a success, with the problem document it carried. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
    message: string,
  ) {
    super(message);
  }
}

/** What an operator reads for a refused call: the problem's detail, and for 400 the errors per field. */
export function describeProblem(status: number, problem: Partial<Problem>): string {
  const detail = problem.detail ?? problem.title ?? `HTTP ${status}`;
  switch (status) {
    case 401:
      return `${detail} (not signed in or the session expired: run \`warden login\`).`;
    case 403:
      return `Forbidden: ${detail}`;
    case 404:
      return `Not found: ${detail}`;
    case 409:
      return `Conflict: ${detail}`;
    case 400: {
      const fields = Object.entries(problem.errors ?? {}).flatMap(([field, messages]) => messages.map((m) => `  ${field}: ${m}`));
      return fields.length > 0 ? `${detail}\n${fields.join('\n')}` : detail;
    }
    default:
      return status >= 500 ? `The server failed (${status}): ${detail}` : detail;
  }
}
