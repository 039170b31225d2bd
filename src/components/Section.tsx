import { Card, Heading, Stack, Text } from '@chakra-ui/react';
import { useId, type ReactNode } from 'react';

interface SectionProps {
  title: string;
  description?: ReactNode;
  /** Buttons on the heading's right. */
  actions?: ReactNode;
  children: ReactNode;
}

/** One part of a screen, a landmark named by its heading. */
export function Section({ title, description, actions, children }: SectionProps) {
  const headingId = useId();
  return (
    <Card.Root as="section" aria-labelledby={headingId} variant="outline">
      <Card.Body gap="4">
        <Stack direction={{ base: 'column', sm: 'row' }} justify="space-between" align={{ sm: 'center' }} gap="3">
          <Stack gap="1">
            <Heading as="h2" size="md" id={headingId}>
              {title}
            </Heading>
            {description && <Text color="fg.muted">{description}</Text>}
          </Stack>
          {actions}
        </Stack>
        {children}
      </Card.Body>
    </Card.Root>
  );
}
