import { findGroup, instanceIdsOfGroup, noGroupLimits } from '../db/groups';
import { findInstanceRow } from '../db/instances';
import { writeInstanceLimits } from '../engines/confinement';
import type { InstanceContext } from './instanceContext';

// An instance's processes run with its group's limits (DESIGN §11), kept beside its folder: written
// when it is made, moved or its group's limits change, and forgotten when it is deleted. A running
// engine takes new limits at its next start.

/**
 * Keeps the limits of the instance's group as it is now (the defaults in no group) for the instance's
 * folder, or for `dir` (a scratch copy of it); no-op before the folder exists.
 */
export async function keepGroupLimits(ctx: InstanceContext, instanceId: string, dir?: string): Promise<void> {
  const row = await findInstanceRow(ctx.deps.db, instanceId);
  if (!row) return;
  const group = row.group_id === null ? undefined : await findGroup(ctx.deps.db, row.group_id);
  writeInstanceLimits(dir ?? ctx.runtime(row).dir, group?.limits ?? noGroupLimits);
}

/** After an admin changed a group's limits: every instance in it keeps the new ones. */
export async function keepLimitsOfGroup(ctx: InstanceContext, groupId: string): Promise<void> {
  for (const id of await instanceIdsOfGroup(ctx.deps.db, groupId)) await keepGroupLimits(ctx, id);
}
