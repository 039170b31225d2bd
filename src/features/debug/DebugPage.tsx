import { Stack } from '@chakra-ui/react';
import { Navigate } from 'react-router-dom';
import { hasRole } from '../../../contracts/roles';
import { routes } from '../../../contracts/routes';
import { useAppSelector } from '../../app/hooks';
import { PageHeader } from '../../components/PageHeader';
import { ConnectionSection } from './ConnectionSection';
import { MessageSection } from './MessageSection';
import { OutboxSection } from './OutboxSection';
import { RecentEventsSection } from './RecentEventsSection';
import { ServerInfoSection } from './ServerInfoSection';
import { selectCurrentUser } from '../auth/selectors';

/** Server facts, the live connection, test messages and the e-mail outbox. It joins no hub group. */
export function DebugPage() {
  const user = useAppSelector(selectCurrentUser);
  // Everything here is admin-only on the server; SPEC §2 leaves the route open, so the page, not the
  // route, sends a regular user who typed the address to the instances before any call is refused.
  if (user && !hasRole(user, 'admin')) return <Navigate to={routes.instances.path} replace />;
  return (
    <>
      <PageHeader title="Debug" description="Server facts, a ping and test events for checking the console’s connection." />
      <Stack gap="6">
        <ServerInfoSection />
        <ConnectionSection />
        <MessageSection />
        <RecentEventsSection />
        <OutboxSection />
      </Stack>
    </>
  );
}
