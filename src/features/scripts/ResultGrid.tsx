import { Box, Text } from '@chakra-ui/react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { ScriptColumn } from '../../../contracts/scripts';

/** Up to this many rows are plain table rows; longer results are virtualized. */
export const plainRowLimit = 100;
const rowHeight = 29;


interface ResultGridProps {
  /** Names the grid, e.g. "Rows of statement 2". */
  label: string;
  columns: readonly ScriptColumn[];
  /** Cells as the server's text, null for SQL NULL. */
  rows: readonly (readonly (string | null)[])[];
}

/**
 * The rows a statement returned, each column headed by its name and type. Long results are
 * virtualized: only the rows in view are in the document, so 1,000 rows scroll as 20 do.
 */
export function ResultGrid({ label, columns, rows }: ResultGridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = rows.length > plainRowLimit;
  const virtualizer = useVirtualizer({
    count: virtual ? rows.length : 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 20,
  });
  const template = `repeat(${columns.length}, minmax(8rem, 1fr))`;
  const cells = (row: readonly (string | null)[]) =>
    columns.map((column, index) => {
      const value = row[index] ?? null;
      // NULL in muted italics, apart from a text that reads 'NULL'.
      return (
        <Box key={column.name + index} role="cell" px="2" py="1" truncate title={value ?? 'NULL'} color={value === null ? 'fg.muted' : undefined} fontStyle={value === null ? 'italic' : undefined}>
          {value ?? 'NULL'}
        </Box>
      );
    });

  return (
    <Box role="table" aria-label={label} aria-rowcount={rows.length + 1} borderWidth="1px" borderRadius="md" fontSize="sm" overflowX="auto">
      <Box role="rowgroup" minW="fit-content">
        <Box role="row" display="grid" gridTemplateColumns={template} bg="bg.muted" fontWeight="semibold">
          {columns.map((column, index) => (
            <Box key={column.name + index} role="columnheader" px="2" py="1">
              {column.name}{' '}
              <Text as="span" fontWeight="normal" fontSize="xs">
                {column.type}
              </Text>
            </Box>
          ))}
        </Box>
      </Box>
      {virtual ? (
        <Box ref={scroller} role="rowgroup" maxH="24rem" overflowY="auto" minW="fit-content" tabIndex={0} aria-label={`${label}, scrollable`}>
          <Box position="relative" h={`${virtualizer.getTotalSize()}px`}>
            {virtualizer.getVirtualItems().map((item) => (
              <Box
                key={item.key}
                role="row"
                aria-rowindex={item.index + 2}
                display="grid"
                gridTemplateColumns={template}
                position="absolute"
                top="0"
                left="0"
                w="full"
                h={`${item.size}px`}
                transform={`translateY(${item.start}px)`}
                borderTopWidth="1px"
              >
                {cells(rows[item.index])}
              </Box>
            ))}
          </Box>
        </Box>
      ) : (
        <Box role="rowgroup" minW="fit-content">
          {rows.map((row, index) => (
            <Box key={index} role="row" display="grid" gridTemplateColumns={template} borderTopWidth="1px">
              {cells(row)}
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}
