import { Alert, CloseButton, Stack } from '@chakra-ui/react';
import { useEffect } from 'react';
import { headerBottomVar } from '../../components/PageHeader';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectToasts } from './selectors';
import { dismissToast, type Toast } from './uiSlice';

// Failures stay longer: they usually need reading, and maybe copying.
const lifetimeMs: Record<Toast['status'], number> = { success: 4000, info: 5000, warning: 8000, error: 10000 };

/**
 * Toasts at top-center (SPEC §2), newest last, below the page header: every screen's header keeps
 * its actions there (Create, Delete, Save …), and a toast must never cover the button it answers.
 * The header says where it ends, however its actions wrap (PageHeader); a screen without one has the
 * room its title and a row of actions would take.
 */
const toastTop = { base: `calc(var(${headerBottomVar}, 9rem) + 0.5rem)`, md: `calc(var(${headerBottomVar}, 7rem) + 0.5rem)` };

export function ToastStack() {
  const toasts = useAppSelector(selectToasts);
  if (toasts.length === 0) return null;
  return (
    <Stack
      role="region"
      aria-label="Notifications"
      position="fixed"
      top={toastTop}
      left="50%"
      transform="translateX(-50%)"
      zIndex="toast"
      gap="2"
      width="min(26rem, calc(100vw - 2rem))"
      pointerEvents="none"
    >
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </Stack>
  );
}

function ToastItem({ toast }: { toast: Toast }) {
  const dispatch = useAppDispatch();
  useEffect(() => {
    const timer = setTimeout(() => dispatch(dismissToast(toast.id)), lifetimeMs[toast.status]);
    return () => clearTimeout(timer);
  }, [dispatch, toast.id, toast.status]);

  const urgent = toast.status === 'error' || toast.status === 'warning';
  return (
    <Alert.Root
      status={toast.status}
      variant="surface"
      boxShadow="lg"
      pointerEvents="auto"
      // Screen readers interrupt for failures and wait politely for the rest.
      role={urgent ? 'alert' : 'status'}
    >
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>{toast.summary}</Alert.Title>
        {toast.detail && <Alert.Description wordBreak="break-word">{toast.detail}</Alert.Description>}
      </Alert.Content>
      <CloseButton size="xs" aria-label="Dismiss" onClick={() => dispatch(dismissToast(toast.id))} />
    </Alert.Root>
  );
}
