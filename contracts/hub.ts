// The real-time hub's vocabulary (DESIGN §8), shared by the server and the browser.

export const hubPath = '/uihub';

/** Every event the server pushes. The browser registers a handler for each and dispatches `realtime/event/<Name>`. */
export const hubEvents = [
  'InstanceCreated',
  'InstanceUpdated',
  'InstanceStatusChanged',
  'InstanceDeleted',
  'BackupProgress',
  'BackupCompleted',
  'BackupUpdated',
  'BackupDeleted',
  'LogsAppended',
  'OperationCompleted',
  'StatisticsChanged',
  'MetricsAppended',
  'UserChanged',
  'GroupChanged',
  'DebugMessage',
  'ClientBuildProgress',
  'ScriptRunUpdated',
  'RecoveryWindowChanged',
  'HostChanged',
] as const;
export type HubEventName = (typeof hubEvents)[number];

/** Groups a page may join with Join{Name}(...args) and leave with Leave{Name}(...args). */
export const hubGroups = ['Instances', 'Instance', 'Logs', 'Backups', 'Users', 'Groups'] as const;
export type HubGroupName = (typeof hubGroups)[number];

export interface DebugMessagePayload {
  text: string;
  from: string;
  sentAt: string;
}

export interface UserChangedPayload {
  id: string;
  change: 'created' | 'updated' | 'deleted';
}

export interface GroupChangedPayload {
  id: string;
  change: 'created' | 'updated' | 'deleted' | 'members';
}

/** Reconnect delays of SPEC §9: then the client gives up. */
export const reconnectDelaysMs = [0, 2000, 10000, 30000] as const;
export const keepAliveIntervalMs = 15_000;
export const serverTimeoutMs = 30_000;
/**
 * SPEC §9 buffer size: what either side of a stateful-reconnect link keeps of the messages the other
 * has not acknowledged yet, in bytes, so that a short network drop loses no message.
 */
export const statefulReconnectBufferSize = 100_000;
