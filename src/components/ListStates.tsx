import { Button, EmptyState as ChakraEmptyState, HStack, Spinner, Text, VStack } from '@chakra-ui/react';
import type { ReactNode } from 'react';

// What a list or screen shows instead of its data: while it loads, when there is none, when it failed.

export function LoadingState({ label }: { label: string }) {
  return (
    <HStack role="status" gap="3" py="8" justify="center" color="fg.muted">
      <Spinner size="sm" />
      <Text>{label}</Text>
    </HStack>
  );
}

export function EmptyState({ title, description, children }: { title: string; description?: string; children?: ReactNode }) {
  return (
    <ChakraEmptyState.Root size="sm">
      <ChakraEmptyState.Content>
        <VStack textAlign="center" gap="1">
          <ChakraEmptyState.Title>{title}</ChakraEmptyState.Title>
          {description && <ChakraEmptyState.Description>{description}</ChakraEmptyState.Description>}
        </VStack>
        {children}
      </ChakraEmptyState.Content>
    </ChakraEmptyState.Root>
  );
}

/** The failure itself was already toasted by the one error path; this says what is missing and offers a retry. */
export function ErrorState({ title, onRetry }: { title: string; onRetry?: () => void }) {
  return (
    <EmptyState title={title} description="The server did not answer as expected.">
      {onRetry && (
        <Button size="sm" variant="outline" onClick={onRetry}>
          Retry
        </Button>
      )}
    </EmptyState>
  );
}
