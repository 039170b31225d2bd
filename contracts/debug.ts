import { Type, type Static } from 'typebox';

// POST /debug (admin only): a few actions that exercise the server and the hub (DESIGN §10).

// One flat object rather than a union per action: a union's validation errors name every branch's
// fields, so a form could not tell which field is wrong. The route checks what each action needs.
export const DebugRequest = Type.Object(
  {
    action: Type.Union([Type.Literal('ping'), Type.Literal('broadcast'), Type.Literal('info')]),
    event: Type.Optional(Type.Literal('DebugMessage')),
    payload: Type.Optional(Type.Object({ text: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false })),
    to: Type.Optional(Type.Union([Type.Literal('me'), Type.Literal('all')])),
  },
  { additionalProperties: false },
);
export type DebugRequest = Static<typeof DebugRequest>;

export const PingResponse = Type.Object({ pong: Type.Literal(true), serverTime: Type.String() });
export type PingResponse = Static<typeof PingResponse>;

export const EngineInfo = Type.Object({
  type: Type.Union([Type.Literal('pg'), Type.Literal('etcd')]),
  available: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()]),
  problem: Type.Union([Type.String(), Type.Null()]),
});

export const ServerInfo = Type.Object({
  version: Type.String(),
  uptimeSeconds: Type.Number(),
  node: Type.String(),
  store: Type.String(),
  engines: Type.Array(EngineInfo),
  hubConnections: Type.Integer(),
  /** Whether engine processes run confined (bubblewrap), and why not. */
  confinement: Type.Object({ active: Type.Boolean(), reason: Type.Union([Type.String(), Type.Null()]) }),
  /** Whether pg instances archive WAL with pgBackRest, into which repository (a folder or a bucket), and why not. */
  pointInTimeRecovery: Type.Object({
    active: Type.Boolean(),
    repository: Type.Union([Type.Literal('local'), Type.Literal('s3'), Type.Null()]),
    /** The folder, or the bucket's endpoint, bucket and prefix. */
    location: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()]),
  }),
});
export type ServerInfo = Static<typeof ServerInfo>;

export const BroadcastAccepted = Type.Object({ delivered: Type.Literal('queued'), to: Type.String() });
