import { Alert } from '@chakra-ui/react';
import type { ReactNode } from 'react';

interface NoticeProps {
  status?: 'success' | 'info' | 'warning' | 'error';
  title: string;
  children?: ReactNode;
}

/** A message that stays in the page (unlike a toast): an outcome to read, a warning to heed. */
export function Notice({ status = 'success', title, children }: NoticeProps) {
  return (
    <Alert.Root status={status} role={status === 'error' ? 'alert' : 'status'}>
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>{title}</Alert.Title>
        {children && <Alert.Description>{children}</Alert.Description>}
      </Alert.Content>
    </Alert.Root>
  );
}
