import { Badge } from '@chakra-ui/react';
import type { Role } from '../../contracts/roles';

export const roleLabel = (role: Role | string) => role.charAt(0).toUpperCase() + role.slice(1);

export function RoleBadge({ role }: { role: Role | string }) {
  return (
    <Badge colorPalette={role === 'admin' ? 'purple' : 'gray'} variant="subtle">
      {roleLabel(role)}
    </Badge>
  );
}
