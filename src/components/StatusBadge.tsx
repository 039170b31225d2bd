import { Badge } from '@chakra-ui/react';
import type { InstanceStatus } from '../../contracts/instanceValues';

const looks: Record<InstanceStatus, { label: string; palette: string }> = {
  running: { label: 'Running', palette: 'green' },
  stopped: { label: 'Stopped', palette: 'gray' },
  offline: { label: 'Offline', palette: 'red' },
  unInitialized: { label: 'Not initialized', palette: 'orange' },
  unknown: { label: 'Unknown', palette: 'purple' },
};

export const statusLabel = (status: InstanceStatus | string) => looks[status as InstanceStatus]?.label ?? status;

/** An instance's status (DESIGN §5); `reason` (why it is offline, say) shows on hover. */
export function StatusBadge({ status, reason }: { status: InstanceStatus | string; reason?: string | null }) {
  return (
    <Badge colorPalette={looks[status as InstanceStatus]?.palette ?? 'gray'} variant="subtle" title={reason ?? undefined}>
      {statusLabel(status)}
    </Badge>
  );
}
