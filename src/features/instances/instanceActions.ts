import type { InstanceStatus, OperationKind } from '../../../contracts/instanceValues';

/** What the console's buttons ask of an instance; each runs as an operation (202, then OperationCompleted). */
export type InstanceAction = 'start' | 'stop' | 'restart' | 'reload';

export const actionLabels: Record<InstanceAction, string> = {
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
  reload: 'Reload configuration',
};

const allowedFrom: Record<InstanceAction, readonly InstanceStatus[]> = {
  start: ['stopped', 'offline', 'unInitialized'],
  stop: ['running', 'offline'],
  restart: ['running', 'offline'],
  reload: ['running'],
};

/** Whether the action makes sense from this status; the server still has the last word. */
export const canRun = (action: InstanceAction, status: InstanceStatus) => allowedFrom[action].includes(status);

/** An operation under way, as the screens say it. */
export const operationProgress: Record<OperationKind, string> = {
  create: 'Creating',
  start: 'Starting',
  stop: 'Stopping',
  restart: 'Restarting',
  reload: 'Reloading the configuration',
  configure: 'Applying the configuration',
  clone: 'Cloning',
  update: 'Updating',
  delete: 'Deleting',
  switchover: 'Switching the leader over',
  failover: 'Failing over',
  pause: 'Pausing automatic failover',
  resume: 'Resuming automatic failover',
  restartMember: 'Restarting a member',
  reinitializeMember: 'Reinitializing a member',
  compact: 'Compacting',
  defragment: 'Defragmenting',
  addMember: 'Adding a member',
  removeMember: 'Removing a member',
};

/** A finished operation, after the instance's name: "alpha started". */
export const operationDone: Record<OperationKind, string> = {
  create: 'was created',
  start: 'started',
  stop: 'stopped',
  restart: 'restarted',
  reload: 'reloaded its configuration',
  configure: 'applied its configuration',
  clone: 'was cloned',
  update: 'was updated',
  delete: 'was deleted',
  switchover: 'switched its leader over',
  failover: 'failed over',
  pause: 'paused automatic failover',
  resume: 'resumed automatic failover',
  restartMember: 'restarted a member',
  reinitializeMember: 'reinitialized a member',
  compact: 'was compacted',
  defragment: 'was defragmented',
  addMember: 'gained a member',
  removeMember: 'lost a member on request',
};
