import { Box, Button, Field, HStack, Text } from '@chakra-ui/react';
import { Select } from './Select';

export const pageSizes = [10, 25, 50, 100] as const;

interface PagerProps {
  page: number;
  pageSize: number;
  total: number;
  onPageChange: (page: number) => void;
  onPageSizeChange: (pageSize: number) => void;
  /** Names the navigation landmark when a screen has more than one pager. */
  label?: string;
}

/** Page x of y, previous and next, and how many rows a page holds. */
export function Pager({ page, pageSize, total, onPageChange, onPageSizeChange, label = 'Pagination' }: PagerProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  const sizes: readonly number[] = pageSizes.includes(pageSize as (typeof pageSizes)[number])
    ? pageSizes
    : [...pageSizes, pageSize].sort((a, b) => a - b);

  return (
    <HStack as="nav" aria-label={label} justify="space-between" wrap="wrap" gap="4" mt="4">
      <Text color="fg.muted" fontSize="sm">
        {total === 0 ? 'No rows' : `${first}–${last} of ${total}`}
      </Text>
      <HStack gap="3" wrap="wrap">
        <Field.Root orientation="horizontal" w="auto" gap="2">
          <Field.Label fontSize="sm" whiteSpace="nowrap">
            Rows per page
          </Field.Label>
          <Box w="20">
            <Select
              size="sm"
              value={String(pageSize)}
              options={sizes.map((size) => ({ value: String(size), label: String(size) }))}
              onChange={(size) => onPageSizeChange(Number(size))}
            />
          </Box>
        </Field.Root>
        <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          Previous
        </Button>
        <Text fontSize="sm" aria-live="polite" whiteSpace="nowrap">
          Page {page} of {pages}
        </Text>
        <Button size="sm" variant="outline" disabled={page >= pages} onClick={() => onPageChange(page + 1)}>
          Next
        </Button>
      </HStack>
    </HStack>
  );
}
