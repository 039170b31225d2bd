import { useEffect, useState } from 'react';

/** The value once it has stayed the same for `delayMs`: what is asked of the server while someone types. */
export function useSettled(value: string, delayMs: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
