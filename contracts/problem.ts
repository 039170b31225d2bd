import { Type, type Static } from 'typebox';

// RFC 9457 problem details: the one error shape of the API (DESIGN §6).
export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  instance: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  /** The id the server gave the request (also its X-Request-Id header): the key to its log lines. */
  requestId: Type.Optional(Type.String()),
});
export type Problem = Static<typeof Problem>;

export const problemContentType = 'application/problem+json';
