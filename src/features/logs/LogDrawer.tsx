import { Box, CloseButton, Drawer, HStack, Portal, Stack, Text } from '@chakra-ui/react';
import type { LogEntry } from '../../../contracts/logs';
import { CopyButton } from '../../components/CopyButton';
import { TextLink } from '../../components/TextLink';
import { LevelBadge, logTime } from './logLevelLooks';

/** Where an entry's work can be seen: its backup, or the instance page for an operation. */
function relatedLink(entry: LogEntry): { to: string; label: string } | null {
  if (!entry.instanceId) return null;
  const instance = `/instances/${encodeURIComponent(entry.instanceId)}`;
  if (typeof entry.properties.backupId === 'string') return { to: `${instance}/backups/database`, label: 'Open the backups of this instance' };
  if (typeof entry.properties.operation === 'string') return { to: instance, label: `Open the instance (operation: ${entry.properties.operation})` };
  return { to: instance, label: 'Open the instance' };
}

/** One entry in full: every property as formatted JSON, with copy buttons. */
export default function LogDrawer({ entry, instanceName, onClose }: { entry: LogEntry | null; instanceName?: string; onClose: () => void }) {
  const properties = entry ? JSON.stringify(entry.properties, null, 2) : '';
  const related = entry && relatedLink(entry);
  return (
    <Drawer.Root open={!!entry} onOpenChange={(details) => !details.open && onClose()} size="md">
      <Portal>
        <Drawer.Backdrop />
        <Drawer.Positioner>
          <Drawer.Content>
            {entry && (
              <>
                <Drawer.Header>
                  <Drawer.Title>Log entry {entry.id}</Drawer.Title>
                </Drawer.Header>
                <Drawer.Body>
                  <Stack gap="4" fontSize="sm">
                    <HStack gap="3">
                      <LevelBadge level={entry.level} />
                      <Text asChild fontFamily="mono">
                        <time dateTime={entry.timestamp}>{logTime(entry.timestamp)}</time>
                      </Text>
                    </HStack>
                    <Text>
                      {entry.instanceId ? `Instance ${instanceName ?? entry.instanceId}` : 'The control plane'} · handler {entry.handler}
                    </Text>
                    {related && <TextLink to={related.to}>{related.label}</TextLink>}
                    <Box>
                      <HStack justify="space-between">
                        <Text fontWeight="semibold">Message</Text>
                        <CopyButton text={entry.message} label="Copy message" />
                      </HStack>
                      <Text fontFamily="mono" whiteSpace="pre-wrap" wordBreak="break-word">
                        {entry.message}
                      </Text>
                    </Box>
                    <Box>
                      <HStack justify="space-between">
                        <Text fontWeight="semibold">Properties</Text>
                        <CopyButton text={properties} label="Copy properties" />
                      </HStack>
                      <Box as="pre" aria-label="Properties" fontFamily="mono" fontSize="xs" bg="bg.muted" p="3" borderRadius="md" overflowX="auto">
                        {properties}
                      </Box>
                    </Box>
                    <CopyButton text={JSON.stringify(entry)} label="Copy entry as JSON" />
                  </Stack>
                </Drawer.Body>
                <Drawer.CloseTrigger asChild>
                  <CloseButton size="sm" aria-label="Close" />
                </Drawer.CloseTrigger>
              </>
            )}
          </Drawer.Content>
        </Drawer.Positioner>
      </Portal>
    </Drawer.Root>
  );
}
