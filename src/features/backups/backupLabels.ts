import type { BackupKind, BackupStatus, BackupTrigger } from '../../../contracts/backupValues';

/** How the screens say a backup's status, and its badge's colour. */
export const statusLooks: Record<BackupStatus, { label: string; palette: string }> = {
  pending: { label: 'Pending', palette: 'gray' },
  running: { label: 'Running', palette: 'blue' },
  succeeded: { label: 'Succeeded', palette: 'green' },
  failed: { label: 'Failed', palette: 'red' },
  corrupt: { label: 'Corrupt', palette: 'orange' },
};

export const triggerLabels: Record<BackupTrigger, string> = {
  manual: 'Manual',
  schedule: 'Schedule',
  'pre-update': 'Before an update',
  clone: 'For a clone',
};

export const kindLabels: Record<BackupKind, string> = { database: 'Database', file: 'Files' };

/** Still being taken: its outcome is yet to come. */
export const isBackupActive = (status: BackupStatus) => status === 'pending' || status === 'running';

/** A duration as an operator reads it: 850 ms, 42 s, 3 min 5 s, 1 h 2 min. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}
