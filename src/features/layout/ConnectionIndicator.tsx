import { Button, chakra, Flex, Status, Text } from '@chakra-ui/react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { retryRequested, type ConnectionState } from '../realtime/realtimeSlice';
import { selectConnection, selectConnectionError } from '../realtime/selectors';
import { SidebarLabel } from './NavItem';

const looks: Record<ConnectionState, { label: string; colour: string }> = {
  Connected: { label: 'Live', colour: 'fg.success' },
  Connecting: { label: 'Connecting…', colour: 'fg.warning' },
  Reconnecting: { label: 'Reconnecting…', colour: 'fg.warning' },
  Disconnecting: { label: 'Disconnecting…', colour: 'fg.muted' },
  Disconnected: { label: 'Offline', colour: 'fg.error' },
};

function RetryIcon() {
  return (
    <chakra.svg viewBox="0 0 24 24" boxSize="4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M21 12a9 9 0 1 1-2.6-6.4M21 3v6h-6" />
    </chakra.svg>
  );
}

/**
 * The live connection's state in the sidebar: a dot and a word (the word only from md up; below,
 * the dot's tooltip and the accessible name carry it), and a retry once the connection is offline.
 */
export function ConnectionIndicator() {
  const connection = useAppSelector(selectConnection);
  const error = useAppSelector(selectConnectionError);
  const dispatch = useAppDispatch();
  const { label, colour } = looks[connection];
  const offline = connection === 'Disconnected';

  return (
    <Flex
      align="center"
      direction={{ base: 'column', md: 'row' }}
      justify={{ base: 'center', md: 'space-between' }}
      gap="1"
      px="3"
      py="1"
    >
      <Status.Root
        role="status"
        aria-live="polite"
        aria-label={`Live connection: ${label}`}
        title={offline && error ? `${label}: ${error}` : label}
        size="sm"
        color="fg.muted"
      >
        <Status.Indicator bg={colour} />
        <Text as="span" srOnly={{ base: true, md: false }}>
          {label}
        </Text>
      </Status.Root>
      {offline && (
        <Button
          variant="ghost"
          size="2xs"
          color="fg.muted"
          aria-label="Retry connection"
          title="Retry connection"
          onClick={() => dispatch(retryRequested())}
        >
          <RetryIcon />
          <SidebarLabel>Retry</SidebarLabel>
        </Button>
      )}
    </Flex>
  );
}
