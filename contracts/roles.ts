// Roles and ranks (SPEC §6). Both the server's authorization and the browser's guard read these.
export const roles = ['admin', 'regular'] as const;
export type Role = (typeof roles)[number];

export const roleRank: Record<Role, number> = { admin: 999, regular: 100 };

/**
 * SPEC §6: a single required role passes when the user's rank is at least that role's rank;
 * a list of roles passes when the user's role is in the list. No user means no access.
 */
export function hasRole(user: { role: Role } | null | undefined, required: Role | readonly Role[]): boolean {
  if (!user) return false;
  if (Array.isArray(required)) return required.includes(user.role);
  return roleRank[user.role] >= roleRank[required as Role];
}
