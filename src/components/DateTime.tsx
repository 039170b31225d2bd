const pad = (n: number) => String(n).padStart(2, '0');

/** SPEC §9's mm/dd/yy, with the time: local, to the minute. */
export function formatDateTime(iso: string): string {
  const at = new Date(iso);
  return `${pad(at.getMonth() + 1)}/${pad(at.getDate())}/${pad(at.getFullYear() % 100)} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
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
