import { Table } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/**
 * The frame every table of the console sits in: a table wider than the screen (a phone) scrolls
 * sideways inside it, so the page itself never does.
 */
export function TableFrame({ children }: { children: ReactNode }) {
  return (
    <Table.ScrollArea borderWidth="1px" rounded="l2" maxW="full">
      {children}
    </Table.ScrollArea>
  );
}
