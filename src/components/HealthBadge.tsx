import { Badge } from '@chakra-ui/react';
import type { HealthLevel } from '../../contracts/instanceValues';

const looks: Record<HealthLevel, { label: string; palette: string }> = {
  good: { label: 'Good', palette: 'green' },
  warn: { label: 'Warning', palette: 'orange' },
  error: { label: 'Error', palette: 'red' },
};

export const healthLabel = (level: HealthLevel) => looks[level].label;

/** A health level of an instance or of one of its checks. */
export function HealthBadge({ level }: { level: HealthLevel }) {
  return (
    <Badge colorPalette={looks[level].palette} variant="outline">
      {healthLabel(level)}
    </Badge>
  );
}
