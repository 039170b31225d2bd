import { Heading, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: string;
  description?: string;
  /** Buttons and the like, on the heading's right. */
  actions?: ReactNode;
}

/** A screen's heading; it also names the browser tab. */
export function PageHeader({ title, description, actions }: PageHeaderProps) {
  return (
    <Stack as="header" direction={{ base: 'column', md: 'row' }} justify="space-between" gap="4" mb="6">
      {/* React 19 hoists <title> into the document head. */}
      <title>{`${title} · Warden`}</title>
      <Stack gap="1">
        <Heading as="h1" size="2xl">
          {title}
        </Heading>
        {description && <Text color="fg.muted">{description}</Text>}
      </Stack>
      {actions}
    </Stack>
  );
}
