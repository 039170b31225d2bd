import type { FastifyRequest } from 'fastify';
import type { LogLevel } from '../config';

/** Where log lines go; tests pass a collector, production writes to stdout. */
export interface LogStream {
  write(line: string): void;
}

// Query values that may carry secrets (e-mail confirmation and reset codes, tokens).
const secretQueryKey = /code|token|password|secret|key/i;

/** The request URL as logged, with secret query values masked. */
export function loggedUrl(url: string): string {
  const [pathPart, query] = url.split('?', 2);
  if (!query) return url;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (secretQueryKey.test(key)) params.set(key, '[redacted]');
  return `${pathPart}?${params.toString()}`;
}

/**
 * pino options for Fastify's request logging. Passwords never reach the log (bodies are not logged);
 * cookies, Authorization and Set-Cookie are redacted should anything log headers.
 */
export function loggerOptions(level: LogLevel, stream?: LogStream) {
  return {
    level,
    stream,
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedUrl(request.url),
        remoteAddress: request.ip,
      }),
    },
  };
}
