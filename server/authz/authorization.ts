import { hasRole, type Role } from '../../contracts/roles';
import { groupIdsOfUser, isMember, type GroupInstances } from '../db/groups';
import type { Db } from '../db/schema';

/** Whom a decision is about: an HTTP principal or a hub connection's. */
export interface Subject {
  userId: string;
  role: Role;
}

/**
 * What a principal may see (DESIGN §5): admins see every group and instance; a regular user sees
 * the groups they are a member of and those groups' instances, nothing else. Every route and the
 * hub ask here, so the HTTP API and Join{Name} never disagree. Callers answer 404 for what is not
 * visible, so an outsider cannot tell "hidden" from "absent".
 */
export interface Authorization {
  /** The groups a principal may see; null means all of them (admins). */
  visibleGroupIds(subject: Subject): Promise<string[] | null>;
  canSeeGroup(subject: Subject, groupId: string): Promise<boolean>;
  canSeeInstance(subject: Subject, instanceId: string): Promise<boolean>;
}

export function createAuthorization(db: Db, instances: Pick<GroupInstances, 'groupOfInstance'>): Authorization {
  const isAdmin = (subject: Subject) => hasRole(subject, 'admin');
  return {
    visibleGroupIds: async (subject) => (isAdmin(subject) ? null : groupIdsOfUser(db, subject.userId)),
    canSeeGroup: async (subject, groupId) => isAdmin(subject) || isMember(db, groupId, subject.userId),
    canSeeInstance: async (subject, instanceId) => {
      if (isAdmin(subject)) return true;
      // An instance in no group (or no instance at all) is an admin's alone.
      const groupId = await instances.groupOfInstance(db, instanceId);
      return typeof groupId === 'string' && isMember(db, groupId, subject.userId);
    },
  };
}
