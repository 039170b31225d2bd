import { Badge } from '@chakra-ui/react';

export function UserStatus({ disabled }: { disabled: boolean }) {
  return <Badge colorPalette={disabled ? 'red' : 'green'}>{disabled ? 'Disabled' : 'Enabled'}</Badge>;
}
