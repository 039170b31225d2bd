import type { PhysicalBackupKind } from '../../../contracts/pitr';

/**
 * How the console says each kind of physical backup, and the mark that stands for it on the
 * timeline: a shape and a letter, so the kinds differ without colour.
 */
export const physicalKindLooks: Record<PhysicalBackupKind, { label: string; letter: string; shape: 'square' | 'diamond' | 'circle'; says: string }> = {
  full: { label: 'Full', letter: 'F', shape: 'square', says: 'the whole database' },
  diff: { label: 'Differential', letter: 'D', shape: 'diamond', says: 'what changed since the last full backup' },
  incr: { label: 'Incremental', letter: 'I', shape: 'circle', says: 'what changed since the last backup of any kind' },
};
