import { Stack } from '@chakra-ui/react';
import { PageHeader } from '../../components/PageHeader';
import { ConnectionSection } from './ConnectionSection';
import { MessageSection } from './MessageSection';
import { OutboxSection } from './OutboxSection';
import { RecentEventsSection } from './RecentEventsSection';
import { ServerInfoSection } from './ServerInfoSection';

/** Server facts, the live connection, test messages and the e-mail outbox. It joins no hub group. */
export function DebugPage() {
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
