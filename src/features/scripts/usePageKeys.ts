import { useEffect, useRef } from 'react';

interface PageKeys {
  save: () => void;
  run: () => void;
}

/**
 * Ctrl+S (Cmd+S on a Mac) saves and Ctrl/Cmd+Enter runs, wherever the focus is on the page. Caught
 * before the editor sees them, so Enter adds no line and the browser opens no save dialog.
 */
export function usePageKeys(keys: PageKeys) {
  const latest = useRef(keys);
  useEffect(() => {
    latest.current = keys;
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      const action = event.key === 's' || event.key === 'S' ? latest.current.save : event.key === 'Enter' ? latest.current.run : null;
      if (!action) return;
      event.preventDefault();
      event.stopPropagation();
      action();
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, []);
}
