import { Stack, Tabs } from '@chakra-ui/react';
import { hasRole } from '../../../contracts/roles';
import { useAppSelector } from '../../app/hooks';
import { PageHeader } from '../../components/PageHeader';
import { selectCurrentUser } from '../auth/selectors';
import { BuildProgress } from './BuildProgress';
import { ClientVersionsTable } from './ClientVersionsTable';

/** /clients (SPEC §2, any role): releases of the Warden command-line client to download, check and run. */
export function ClientsPage() {
  const user = useAppSelector(selectCurrentUser);
  const isAdmin = !!user && hasRole(user, 'admin');
  return (
    <>
      <PageHeader title="Clients" description="Downloads of the Warden command-line client for Windows and containers." />
      <Stack gap="4">
        <BuildProgress />
        <Tabs.Root defaultValue="windows" variant="line" lazyMount>
          <Tabs.List>
            <Tabs.Trigger value="windows">Windows</Tabs.Trigger>
            <Tabs.Trigger value="containers">Containers</Tabs.Trigger>
          </Tabs.List>
          <Tabs.Content value="windows">
            <Stack gap="4">
              <ClientVersionsTable platform="windows" canRemove={isAdmin} />
            </Stack>
          </Tabs.Content>
          <Tabs.Content value="containers">
            <Stack gap="4">
              <ClientVersionsTable platform="containers" canRemove={isAdmin} />
            </Stack>
          </Tabs.Content>
        </Tabs.Root>
      </Stack>
    </>
  );
}
