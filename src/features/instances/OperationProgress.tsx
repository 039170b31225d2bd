import { HStack, Spinner, Text } from '@chakra-ui/react';
import type { Operation } from '../../../contracts/instances';
import { operationProgress } from './instanceActions';

/** The operation an instance is going through, while it runs (DESIGN §6: long work shows progress). */
export function OperationProgress({ operation }: { operation: Operation | null }) {
  if (!operation) return null;
  return (
    <HStack role="status" gap="2" color="fg.muted" fontSize="sm">
      <Spinner size="xs" />
      <Text as="span">{operationProgress[operation.kind]}…</Text>
    </HStack>
  );
}
