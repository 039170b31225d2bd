import { Box, Flex } from '@chakra-ui/react';
import { Outlet, ScrollRestoration, useNavigation } from 'react-router-dom';
import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { layoutEntered, layoutLeft } from '../realtime/realtimeSlice';
import { selectCurrentUser } from '../auth/selectors';
import { Sidebar } from './Sidebar';

/** The signed-in frame: sidebar and main area. */
export function Layout() {
  const user = useAppSelector(selectCurrentUser);
  const navigation = useNavigation();
  const dispatch = useAppDispatch();
  // The live connection lives while the signed-in frame is shown (SPEC §4).
  useEffect(() => {
    dispatch(layoutEntered());
    return () => {
      dispatch(layoutLeft());
    };
  }, [dispatch]);
  // Only for a known user (SPEC §1); when the session ends, the session saga moves on to sign-in.
  if (!user) return null;

  return (
    <Flex minH="100dvh">
      <Sidebar user={user} />
      <Box as="main" flex="1" minW="0" p={{ base: '4', md: '8' }} aria-busy={navigation.state !== 'idle'}>
        <Outlet />
      </Box>
      {/* A new screen opens at its top; Back and Forward return to where the person was. */}
      <ScrollRestoration />
    </Flex>
  );
}
