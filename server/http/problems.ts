import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { problemContentType, type Problem } from '../../contracts/problem';
import { isStoreUnreachable } from '../db/postgresStore';

// The one place errors become RFC 9457 problem details (DESIGN §6). Handlers throw HttpProblem;
// everything else Fastify or a plugin throws is mapped here; anything unexpected is a bare 500.

const statusTitles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

// Types point at the RFC section defining the status, as ASP.NET Core's problem details do.
const statusTypes: Record<number, string> = {
  400: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
  401: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
  403: 'https://tools.ietf.org/html/rfc9110#section-15.5.4',
  404: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
  405: 'https://tools.ietf.org/html/rfc9110#section-15.5.6',
  408: 'https://tools.ietf.org/html/rfc9110#section-15.5.9',
  409: 'https://tools.ietf.org/html/rfc9110#section-15.5.10',
  410: 'https://tools.ietf.org/html/rfc9110#section-15.5.11',
  413: 'https://tools.ietf.org/html/rfc9110#section-15.5.14',
  414: 'https://tools.ietf.org/html/rfc9110#section-15.5.15',
  415: 'https://tools.ietf.org/html/rfc9110#section-15.5.16',
  416: 'https://tools.ietf.org/html/rfc9110#section-15.5.17',
  422: 'https://tools.ietf.org/html/rfc9110#section-15.5.21',
  429: 'https://tools.ietf.org/html/rfc6585#section-4',
  431: 'https://tools.ietf.org/html/rfc6585#section-5',
  500: 'https://tools.ietf.org/html/rfc9110#section-15.6.1',
  503: 'https://tools.ietf.org/html/rfc9110#section-15.6.4',
};

export const validationTitle = 'One or more validation errors occurred.';

export type FieldErrors = Record<string, string[]>;

/** An error a handler throws to answer with a problem: `throw new HttpProblem(404, 'No such instance.')`. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    detail?: string,
    options: { title?: string; errors?: FieldErrors; headers?: Record<string, string> } = {},
  ) {
    const title = options.title ?? statusTitles[status] ?? 'Error';
    super(detail ?? title);
    this.name = 'HttpProblem';
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  toJSON(): Problem {
    return {
      type: statusTypes[this.status] ?? 'about:blank',
      title: this.title,
      status: this.status,
      ...(this.detail !== undefined && { detail: this.detail }),
      ...(this.errors !== undefined && { errors: this.errors }),
    };
  }
}

/** A 400 listing what is wrong per field, e.g. `{ email: ['is required'] }`. */
export function validationProblem(errors: FieldErrors): HttpProblem {
  return new HttpProblem(400, undefined, { title: validationTitle, errors });
}

/** Answers a problem, naming the request it answers so an operator can find its log lines. */
export function sendProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  const body: Problem = { ...problem.toJSON(), requestId: reply.request.id };
  return reply.code(problem.status).headers(problem.headers).type(problemContentType).send(body);
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Ajv errors keyed by field path (`parameters.max_connections`; `$` for the whole document). */
function fieldErrors(validation: readonly AjvError[]): FieldErrors {
  // No prototype: a field named `__proto__` or `constructor` is a key like any other.
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  for (const error of validation) {
    const path = error.instancePath
      .split('/')
      .filter(Boolean)
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      path.push(String(error.params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path.push(String(error.params.additionalProperty));
      message = 'is not a known field';
    }
    const key = path.join('.') || '$';
    (errors[key] ??= []).push(message);
  }
  return errors;
}

const diskFull = {
  title: "The server's disk is full",
  detail: 'The server has no room left to write. An operator must free space on its disk; then try again.',
};
const diskReadOnly = {
  title: "The server's disk is read-only",
  detail: 'The server cannot write to its disk. An operator must make it writable again; then try again.',
};
const diskFailed = {
  title: "The server's disk failed",
  detail: "Reading or writing the server's disk failed. An operator must check the disk; then try again.",
};
/** By code: SQLite's (an extended code by its primary one), Node's file system's, PostgreSQL's disk_full. */
const diskErrors = new Map([
  ['SQLITE_FULL', diskFull],
  ['ENOSPC', diskFull],
  ['EDQUOT', diskFull],
  ['53100', diskFull],
  ['SQLITE_READONLY', diskReadOnly],
  ['EROFS', diskReadOnly],
  ['SQLITE_IOERR', diskFailed],
  ['EIO', diskFailed],
]);

/**
 * A store or file write the disk refused, itself or as the cause of another error: no request is at
 * fault and none can succeed until an operator acts, so every caller is told so, with no path.
 */
function diskProblem(error: unknown): HttpProblem | null {
  for (let depth = 0; depth < 5 && typeof error === 'object' && error !== null; depth++) {
    const { code, cause } = error as { code?: unknown; cause?: unknown };
    const trouble = typeof code === 'string' ? diskErrors.get(code.replace(/^(SQLITE_[A-Z]+)_\w+$/, '$1')) : undefined;
    if (trouble) return new HttpProblem(503, trouble.detail, { title: trouble.title });
    error = cause;
  }
  return null;
}

/** How long a client is asked to wait before trying again while the store is out of reach. */
const storeRetryAfterSeconds = 5;

/** Maps anything thrown while handling a request to the problem to answer, or null for a 500. */
export function toProblem(error: FastifyError | Error): HttpProblem | null {
  if (error instanceof HttpProblem) return error;
  const disk = diskProblem(error);
  if (disk) return disk;
  // Only PostgreSQL's text refuses a character (the null character): the request's text is at fault.
  const { code: sqlState } = error as { code?: unknown };
  if (sqlState === '22021' || sqlState === '22P05') return new HttpProblem(400, 'The text holds a character the store cannot keep (the null character, U+0000).');
  if (isStoreUnreachable(error)) {
    return new HttpProblem(503, 'The store cannot be reached just now (its server is down or restarting). Try again in a few seconds.', {
      title: 'Store unavailable',
      headers: { 'retry-after': String(storeRetryAfterSeconds) },
    });
  }
  const { code, statusCode, validation } = error as Partial<FastifyError>;
  if (validation) return validationProblem(fieldErrors(validation as AjvError[]));
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new HttpProblem(400, 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpProblem(400, 'The request body is empty but its Content-Type says JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem(413, 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpProblem(415, 'Send the request body as application/json.');
  }
  if (error instanceof SyntaxError && statusCode === 400) return new HttpProblem(400, 'The request body is not valid JSON.');
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) {
    // Fastify's own messages describe the request, never the server; a plugin's may not, so omit those.
    return new HttpProblem(statusCode, code?.startsWith('FST_') ? error.message : undefined);
  }
  return null;
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  let problem: HttpProblem | null;
  try {
    problem = toProblem(error);
  } catch (mapping) {
    // The error handler must answer a problem whatever it was given; Fastify's fallback would not.
    request.log.error({ err: mapping }, 'Mapping an error to a problem failed');
    problem = null;
  }
  // A disk the operator must see to is logged with its details; the client learns only what is wrong.
  if (problem && problem.status >= 500 && !(error instanceof HttpProblem)) request.log.error({ err: error }, problem.title);
  if (problem) return sendProblem(reply, problem);
  // The log keeps the details for the operator; the client learns nothing about the internals.
  request.log.error({ err: error }, 'Unhandled error');
  return sendProblem(reply, new HttpProblem(500));
}

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Unknown path → 404; a path that exists only for other methods → 405 with an Allow header. */
export function handleNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0];
  const allowed = methods.filter((method) => request.server.findRoute({ method, url: path }) !== null);
  if (allowed.length > 0 && !allowed.includes(request.method as (typeof methods)[number])) {
    const allow = allowed.join(', ');
    return sendProblem(
      reply,
      new HttpProblem(405, `${request.method} is not allowed here; use ${allow}.`, { headers: { allow } }),
    );
  }
  return sendProblem(reply, new HttpProblem(404, 'There is nothing at this address.'));
}

/**
 * Node counts the request line into its header limit: when the packet that overflowed starts a
 * request whose first line has not ended yet, the address is what is too long.
 */
function requestLineTooLong(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet)) return false;
  const text = packet.toString('latin1');
  return /^[A-Z]+ /.test(text) && !text.slice(0, maxRequestLine).includes('\r\n');
}
const maxRequestLine = 8192;

function clientErrorProblem(error: { code?: string; rawPacket?: unknown }): [number, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return requestLineTooLong(error.rawPacket)
      ? [414, 'The address is longer than the server accepts.']
      : [431, 'The request headers are larger than the server accepts.'];
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request did not arrive in time.'];
  return [400, 'The request is not valid HTTP.'];
}

/**
 * Errors Node's HTTP parser raises before a request exists (a request line or headers over the
 * limit, a malformed request, a timeout) never reach Fastify: answer them on the raw socket.
 */
export function handleClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = clientErrorProblem(error);
  const body = JSON.stringify(new HttpProblem(status, detail).toJSON());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${statusTitles[status]}\r\nContent-Type: ${problemContentType}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's router errors (a bad URL encoding → 400, a path parameter over its length → 414). */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return handleError(error, request, reply);
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
}
