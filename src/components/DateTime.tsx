const pad = (n: number) => String(n).padStart(2, '0');

/**
 * SPEC §9's date format, mm/dd/yy, for every date the console shows. A bare calendar day
 * (`2025-03-05`) is that day wherever the reader is; an instant is read in local time.
 */
export function formatDate(value: string | Date): string {
  const at = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00`) : new Date(value);
  return `${pad(at.getMonth() + 1)}/${pad(at.getDate())}/${pad(at.getFullYear() % 100)}`;
}

/** The local time of day, hh:mm (24 hours), or hh:mm:ss. */
export function formatTime(value: string | Date, { seconds = false }: { seconds?: boolean } = {}): string {
  const at = new Date(value);
  return `${pad(at.getHours())}:${pad(at.getMinutes())}${seconds ? `:${pad(at.getSeconds())}` : ''}`;
}

/** mm/dd/yy with the local time, to the minute, or to the second where events come in bursts. */
export function formatDateTime(iso: string, { seconds = false }: { seconds?: boolean } = {}): string {
  return `${formatDate(iso)} ${formatTime(iso, { seconds })}`;
}

/** A moment as the console shows it; the full timestamp on hover. */
export function DateTime({ value, fallback = '—' }: { value: string | null | undefined; fallback?: string }) {
  if (!value) return <>{fallback}</>;
  return (
    <time dateTime={value} title={new Date(value).toString()}>
      {formatDateTime(value)}
    </time>
  );
}
