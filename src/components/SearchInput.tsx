import { Input } from '@chakra-ui/react';
import { useEffect, useEffectEvent, useState } from 'react';

interface SearchInputProps {
  /** The accessible name, e.g. 'Search users'; also the placeholder. */
  label: string;
  value: string;
  /** Called once typing pauses for `delayMs`. */
  onChange: (value: string) => void;
  delayMs?: number;
}

/** A search box that tells its owner only when typing pauses, so each pause is one request. */
export function SearchInput({ label, value, onChange, delayMs = 300 }: SearchInputProps) {
  const [text, setText] = useState(value);
  // Follow the value when it changes from outside (Back, a link), not only from typing.
  const [outside, setOutside] = useState(value);
  if (value !== outside) {
    setOutside(value);
    setText(value);
  }

  const settle = useEffectEvent((settled: string) => onChange(settled));
  useEffect(() => {
    if (text === outside) return;
    const timer = setTimeout(() => settle(text), delayMs);
    return () => clearTimeout(timer);
  }, [text, outside, delayMs]);

  return (
    <Input
      type="search"
      aria-label={label}
      placeholder={`${label}…`}
      maxW="xs"
      value={text}
      onChange={(event) => setText(event.target.value)}
    />
  );
}
