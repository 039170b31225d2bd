import { Type, type Static } from 'typebox';

// Hosts (admins only): the machines that run instances, each through its agent (DESIGN §12).

/** online: its agent heartbeats; lost: no heartbeat for `hostLostAfterBeats` heartbeats. */
export const hostStates = ['online', 'lost'] as const;
export type HostState = (typeof hostStates)[number];

/** Heartbeats a host may miss before it is shown as lost. */
export const hostLostAfterBeats = 3;

export const Host = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** Where clients reach the host's instances. */
  address: Type.String(),
  state: Type.Enum([...hostStates]),
  /** A draining host keeps its instances but is given no new ones. */
  draining: Type.Boolean(),
  cores: Type.Integer(),
  memoryBytes: Type.Number(),
  /** Free space of the file system holding the host's data folder, at its last heartbeat. */
  diskFreeBytes: Type.Number(),
  ports: Type.Object({ from: Type.Integer(), to: Type.Integer() }),
  /** Ports of the host's range not yet handed to an instance. */
  freePorts: Type.Integer(),
  instanceCount: Type.Integer(),
  agentVersion: Type.String(),
  /** When the agent (re)started. */
  startedAt: Type.String(),
  lastHeartbeatAt: Type.String(),
  /** When the host was found lost; null while it is online. */
  lostAt: Type.Union([Type.String(), Type.Null()]),
});
export type Host = Static<typeof Host>;

export const HostList = Type.Object({
  items: Type.Array(Host),
  /** How often agents heartbeat, in milliseconds: a host is lost after `hostLostAfterBeats` of them. */
  heartbeatMs: Type.Integer(),
});
export type HostList = Static<typeof HostList>;

/** PUT /hosts/{id} (admin, audited). */
export const UpdateHostRequest = Type.Object({ draining: Type.Boolean() }, { additionalProperties: false });
export type UpdateHostRequest = Static<typeof UpdateHostRequest>;

/** Pushed to admins when a host registers, is lost, comes back or is drained (never for a mere heartbeat). */
export interface HostChangedPayload {
  host: Host;
  change: 'registered' | 'lost' | 'returned' | 'updated';
}
