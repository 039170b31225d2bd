import { useEffect, useState } from 'react';
import { instanceNameProblem } from '../../../contracts/instanceValues';
import { useValidateInstanceNameQuery } from './instancesApi';

export const nameCheckDelayMs = 300;

export interface NameCheck {
  /** Why the name cannot be used: the local rules first, then the server's answer. */
  problem: string | null;
  /** The server is being asked, or will be once typing pauses. */
  checking: boolean;
  /** The server said the name is free. */
  available: boolean;
}

/**
 * Checks an instance name as it is typed: the rules of DESIGN §5 at once, then — once typing
 * pauses and the rules pass — the server, which also knows the names already taken.
 */
export function useNameCheck(name: string): NameCheck {
  const [settled, setSettled] = useState(name);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(name), nameCheckDelayMs);
    return () => clearTimeout(timer);
  }, [name]);

  const local = name === '' ? null : instanceNameProblem(name);
  const ask = name !== '' && local === null;
  // currentData: an answer about an earlier name is never shown against this one.
  const { currentData: answer, isError } = useValidateInstanceNameQuery(settled, { skip: !ask || settled !== name });

  if (!ask) return { problem: local, checking: false, available: false };
  // A failed check was toasted; the server still checks the name on submit.
  if (!answer) return { problem: null, checking: !isError, available: false };
  return { problem: answer.valid ? null : (answer.reason ?? 'This name cannot be used.'), checking: false, available: answer.valid };
}

/** What the name field says below itself while the name has no problem. */
export function nameHint({ checking, available }: NameCheck): string {
  if (checking) return 'Checking the name…';
  if (available) return 'This name is available.';
  return '3–40 lower-case letters, digits and -, starting with a letter.';
}
