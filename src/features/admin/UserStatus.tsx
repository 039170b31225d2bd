import { Badge, Button, HStack } from '@chakra-ui/react';
import type { User } from '../../../contracts/users';
import { useAppDispatch } from '../../app/hooks';
import { formatTime } from '../../components/DateTime';
import { unlockRequested } from './usersSaga';

/** The lockout in force, if any: one that has passed since the user was loaded no longer counts. */
function lockEnd(user: User): string | null {
  return user.lockedUntil && new Date(user.lockedUntil).getTime() > Date.now() ? user.lockedUntil : null;
}

/** Whether the user may sign in: enabled or disabled, and a sign-in lockout in force with the action that lifts it. */
export function UserStatus({ user }: { user: User }) {
  const dispatch = useAppDispatch();
  const lockedUntil = lockEnd(user);
  const failures = user.failedSignIns === 1 ? '1 failed sign-in' : `${user.failedSignIns} failed sign-ins`;

  return (
    <HStack gap="2" wrap="wrap">
      {(user.disabled || !lockedUntil) && (
        <Badge colorPalette={user.disabled ? 'red' : 'green'}>{user.disabled ? 'Disabled' : 'Enabled'}</Badge>
      )}
      {lockedUntil && (
        <>
          <Badge colorPalette="orange">
            Locked until{' '}
            <time dateTime={lockedUntil} title={new Date(lockedUntil).toString()}>
              {formatTime(lockedUntil)}
            </time>{' '}
            ({failures})
          </Badge>
          <Button
            size="xs"
            variant="outline"
            aria-label={`Unlock sign-in for ${user.email}`}
            onClick={() => dispatch(unlockRequested({ user }))}
          >
            Unlock
          </Button>
        </>
      )}
    </HStack>
  );
}
