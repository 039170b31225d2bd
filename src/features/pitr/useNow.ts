import { useEffect, useState } from 'react';

/** The time now, read again every `everyMs`: for a relative time that ages on screen ("12 s ago"). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
