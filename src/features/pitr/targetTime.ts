import type { RecoveryWindow } from '../../../contracts/pitr';
import { formatDateTime } from '../../components/DateTime';
import { formatDuration } from '../backups/backupLabels';

// A restore target is typed as the person's wall-clock time, shown beside UTC, and sent as an
// instant with its offset: never a bare local time the server would have to guess a zone for.

const pad = (n: number) => String(n).padStart(2, '0');

/** The browser's time zone by its IANA name, as the person's clock reads. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';

// Browsers leave out seconds that are 0; some add milliseconds (to the second is what counts here).
const localInput = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** A datetime-local field's value (`2026-11-26T10:42:05`) as the local moment it names. */
export function parseLocalInput(value: string): Date | null {
  const parts = localInput.exec(value);
  if (!parts) return null;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1).map((part) => Number(part ?? 0));
  const at = new Date(year, month - 1, day, hours, minutes, seconds);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** A moment as a datetime-local field's value, to the second. */
export const toLocalInput = (at: Date): string =>
  `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;

/** A moment as the API takes it: UTC to the second, with its Z. */
export const toWireTime = (at: Date): string => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** mm/dd/yy hh:mm:ss in UTC, as formatDateTime says it in local time. */
const formatUtc = (at: Date): string =>
  `${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}/${pad(at.getUTCFullYear() % 100)} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;

/** A moment in the person's zone and in UTC side by side: `11/26/26 10:42:00 Europe/Berlin = 11/26/26 09:42:00 UTC`. */
export function inBothZones(at: Date): string {
  const zone = browserTimeZone();
  const utc = `${formatUtc(at)} UTC`;
  return zone === 'UTC' || zone === 'Etc/UTC' ? utc : `${formatDateTime(at.toISOString(), { seconds: true })} ${zone} = ${utc}`;
}

/** The window's edges as the console says them, in the person's zone. */
export const windowText = (earliest: string, latest: string): string =>
  `${formatDateTime(earliest, { seconds: true })} – ${formatDateTime(latest, { seconds: true })} (${browserTimeZone()})`;

/** How long ago a moment was: 12 s ago, 3 min 5 s ago. */
export function formatAgo(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 1 ? 'just now' : `${formatDuration(seconds * 1000)} ago`;
}

/**
 * Why a restore cannot reach this moment: before or after the window, or in one of its gaps; null
 * when it can. The server checks again (the window moves): its word then stands beside the field.
 */
export function targetProblem(window: Pick<RecoveryWindow, 'earliest' | 'latest' | 'gaps'>, at: Date): string | null {
  const { earliest, latest } = window;
  if (!earliest || !latest) return 'Nothing can be restored yet: the window opens with the first full backup.';
  const time = at.getTime();
  if (time < Date.parse(earliest) || time > Date.parse(latest)) {
    return `${formatDateTime(at.toISOString(), { seconds: true })} is outside the recoverable window ${windowText(earliest, latest)}.`;
  }
  const gap = window.gaps.find(({ from, to }) => time >= Date.parse(from) && time <= Date.parse(to));
  if (gap) {
    return `${formatDateTime(at.toISOString(), { seconds: true })} falls in a gap of the window (${formatDateTime(gap.from, { seconds: true })} – ${formatDateTime(gap.to, { seconds: true })}): ${gap.reason}`;
  }
  return null;
}
