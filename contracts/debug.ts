import { Type, type Static } from 'typebox';

// POST /debug (admin only): a few actions that exercise the server and the hub (DESIGN §10).

export const DebugRequest = Type.Union([
  Type.Object({ action: Type.Literal('ping') }, { additionalProperties: false }),
  Type.Object(
    {
      action: Type.Literal('broadcast'),
      event: Type.Literal('DebugMessage'),
      payload: Type.Object({ text: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
      to: Type.Union([Type.Literal('me'), Type.Literal('all')]),
    },
    { additionalProperties: false },
  ),
  Type.Object({ action: Type.Literal('info') }, { additionalProperties: false }),
]);
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
});
export type ServerInfo = Static<typeof ServerInfo>;

export const BroadcastAccepted = Type.Object({ delivered: Type.Literal('queued'), to: Type.String() });
