import { Button, type ButtonProps } from '@chakra-ui/react';
import { useEffect, useState } from 'react';

type Outcome = 'idle' | 'copied' | 'failed';
const said: Record<Outcome, string | null> = { idle: null, copied: 'Copied', failed: 'Copy failed' };

/** Copies text to the clipboard and says so for a moment (the clipboard needs https or localhost). */
export function CopyButton({ text, label, ...rest }: { text: string; label: string } & Omit<ButtonProps, 'onClick'>) {
  const [outcome, setOutcome] = useState<Outcome>('idle');
  useEffect(() => {
    if (outcome === 'idle') return;
    const timer = setTimeout(() => setOutcome('idle'), 2000);
    return () => clearTimeout(timer);
  }, [outcome]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };

  return (
    <Button size="sm" variant="outline" {...rest} onClick={copy} aria-live="polite">
      {said[outcome] ?? label}
    </Button>
  );
}
