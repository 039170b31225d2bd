import { Badge } from '@chakra-ui/react';
import type { LogLevel } from '../../../contracts/logLevels';
import { formatDateTime } from '../../components/DateTime';

/** Each level's label and theme palette; text colours come from theme tokens so every theme keeps its contrast. */
export const levelLooks: Record<LogLevel, { label: string; palette: string; text?: string }> = {
  verbose: { label: 'Verbose', palette: 'gray' },
  debug: { label: 'Debug', palette: 'gray' },
  information: { label: 'Info', palette: 'blue' },
  warning: { label: 'Warning', palette: 'orange', text: 'fg.warning' },
  error: { label: 'Error', palette: 'red', text: 'fg.error' },
  fatal: { label: 'Fatal', palette: 'purple', text: 'fg.error' },
};

export function LevelBadge({ level }: { level: LogLevel }) {
  const look = levelLooks[level];
  return (
    <Badge colorPalette={look.palette} variant="subtle" minW="16" justifyContent="center">
      {look.label}
    </Badge>
  );
}

/** The console's date and time, with seconds: log lines a second apart must read apart. */
export const logTime = (iso: string) => formatDateTime(iso, { seconds: true });
