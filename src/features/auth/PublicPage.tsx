import { Card, Flex, Heading, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

interface PublicPageProps {
  title: string;
  /** The browser tab's name, when shorter than the heading. */
  tabTitle?: string;
  description?: ReactNode;
  children: ReactNode;
  /** Links under the card: back to sign-in and the like. */
  footer?: ReactNode;
}

/** The frame of the screens outside the signed-in layout: one card in the middle. */
export function PublicPage({ title, tabTitle = title, description, children, footer }: PublicPageProps) {
  return (
    <Flex as="main" minH="100dvh" align="center" justify="center" p="4" bg="bg.subtle">
      <title>{`${tabTitle} · Warden`}</title>
      <Stack w="full" maxW="sm" gap="4">
        <Card.Root>
          <Card.Header>
            <Heading as="h1" size="xl">
              {title}
            </Heading>
            {description && <Text color="fg.muted">{description}</Text>}
          </Card.Header>
          <Card.Body>{children}</Card.Body>
        </Card.Root>
        {footer && (
          <Flex justify="center" gap="4" fontSize="sm" wrap="wrap">
            {footer}
          </Flex>
        )}
      </Stack>
    </Flex>
  );
}
