import { Table } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/**
 * The frame every table of the console sits in: a table wider than the screen (a phone) scrolls
 * sideways inside it, so the page itself never does. The frame is positioned so visually hidden
 * labels (an "Actions" column header) are clipped by it too: without a positioned ancestor they
 * escape the scroll area and widen the page.
 */
export function TableFrame({ children }: { children: ReactNode }) {
  return (
    <Table.ScrollArea position="relative" borderWidth="1px" rounded="l2" maxW="full">
      {children}
    </Table.ScrollArea>
  );
}
