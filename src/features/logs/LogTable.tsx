import { Box, Button, HStack, Text } from '@chakra-ui/react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import type { LogEntry } from '../../../contracts/logs';
import { TableFrame } from '../ui/TableFrame';
import { LevelBadge, levelLooks, logTime } from './logLevelLooks';

const rowHeight = 32;
/** Within this many pixels of the top the reader is "at the newest": live entries go straight in. */
const topSlack = 4;

interface LogTableProps {
  rows: LogEntry[];
  instanceNames: Map<string, string>;
  /** Hide the instance column (the per-instance section). */
  showInstance: boolean;
  selectedId: number | null;
  onSelect: (entry: LogEntry) => void;
  /** Entries arrived while held back; the pill offers them. */
  heldCount: number;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  /** The reader scrolled away from the newest rows (true) or back to them (false). */
  onAway: (away: boolean) => void;
  /** The pointer is over the rows (true) or left them (false). */
  onPointer: (over: boolean) => void;
}

const columns = (showInstance: boolean) => (showInstance ? '11rem 6rem 10rem 8rem 1fr' : '11rem 6rem 8rem 1fr');

/**
 * The log entries, newest first, virtualized: only the rows in view (and a few around) are in the
 * document, so 100,000 loaded rows scroll as smoothly as 100. Rows are focusable; Enter opens one.
 */
export function LogTable(props: LogTableProps) {
  const { rows, instanceNames, showInstance, selectedId, onSelect, heldCount, hasMore, loadingMore, onLoadMore, onAway, onPointer } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 20,
    getItemKey: (index) => rows[index].id,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? -1;

  // Near the end of what is loaded, read the next (older) page.
  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= rows.length - 40) onLoadMore();
  }, [hasMore, loadingMore, lastIndex, rows.length, onLoadMore]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>, index: number) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(rows[index]);
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = Math.max(0, Math.min(rows.length - 1, index + (event.key === 'ArrowDown' ? 1 : -1)));
      virtualizer.scrollToIndex(next);
      requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`[data-index="${next}"]`)?.focus());
    }
  };

  const template = columns(showInstance);
  return (
    <Box position="relative">
      {heldCount > 0 && (
        <Button
          position="absolute"
          top="10"
          left="50%"
          transform="translateX(-50%)"
          zIndex="1"
          size="xs"
          colorPalette="blue"
          borderRadius="full"
          onClick={() => {
            if (scroller.current) scroller.current.scrollTop = 0;
            onAway(false);
          }}
        >
          {heldCount === 1 ? '1 new entry' : `${heldCount} new entries`}
        </Button>
      )}
      {/* Wider than a phone: the columns scroll sideways inside the frame, header and rows together. */}
      <TableFrame>
        <Box role="table" aria-label="Log entries" aria-rowcount={rows.length + 1} minW="2xl" fontSize="xs">
          <Box role="rowgroup">
            <Box role="row" display="grid" gridTemplateColumns={template} gap="3" px="3" py="2" bg="bg.muted" fontWeight="semibold">
              <Box role="columnheader">Time</Box>
              <Box role="columnheader">Level</Box>
              {showInstance && <Box role="columnheader">Instance</Box>}
              <Box role="columnheader">Handler</Box>
              <Box role="columnheader">Message</Box>
            </Box>
          </Box>
          <Box
            ref={scroller}
            role="rowgroup"
            h="60vh"
            overflowY="auto"
            onScroll={(event) => onAway(event.currentTarget.scrollTop > topSlack)}
            onMouseEnter={() => onPointer(true)}
            onMouseLeave={() => onPointer(false)}
          >
            <Box position="relative" h={`${virtualizer.getTotalSize()}px`}>
              {items.map((item) => {
                const entry = rows[item.index];
                const look = levelLooks[entry.level];
                return (
                  <Box
                    key={item.key}
                    role="row"
                    aria-rowindex={item.index + 2}
                    aria-selected={entry.id === selectedId}
                    data-index={item.index}
                    data-level={entry.level}
                    tabIndex={0}
                    onClick={() => onSelect(entry)}
                    onKeyDown={(event) => onKeyDown(event, item.index)}
                    position="absolute"
                    top="0"
                    left="0"
                    w="full"
                    h={`${item.size}px`}
                    transform={`translateY(${item.start}px)`}
                    display="grid"
                    gridTemplateColumns={template}
                    gap="3"
                    px="3"
                    alignItems="center"
                    borderBottomWidth="1px"
                    cursor="pointer"
                    bg={entry.id === selectedId ? 'bg.emphasized' : undefined}
                    _hover={{ bg: 'bg.subtle' }}
                    _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.focusRing', outlineOffset: '-2px' }}
                  >
                    <Text role="cell" fontFamily="mono" color="fg.muted" whiteSpace="nowrap">
                      <time dateTime={entry.timestamp}>{logTime(entry.timestamp)}</time>
                    </Text>
                    <Box role="cell">
                      <LevelBadge level={entry.level} />
                    </Box>
                    {showInstance && (
                      <Text role="cell" truncate>
                        {entry.instanceId ? (
                          <RouterLink to={`/instances/${encodeURIComponent(entry.instanceId)}`} onClick={(event) => event.stopPropagation()}>
                            <Text as="span" color="fg.info" textDecoration="underline">
                              {instanceNames.get(entry.instanceId) ?? entry.instanceId.slice(0, 8)}
                            </Text>
                          </RouterLink>
                        ) : (
                          <Text as="span" color="fg.muted">
                            control plane
                          </Text>
                        )}
                      </Text>
                    )}
                    <Text role="cell" color="fg.muted" truncate>
                      {entry.handler}
                    </Text>
                    <Text role="cell" color={look.text} fontFamily="mono" truncate title={entry.message}>
                      {entry.message}
                    </Text>
                  </Box>
                );
              })}
            </Box>
            {loadingMore && (
              <HStack justify="center" py="2" color="fg.muted">
                <Text>Loading older entries…</Text>
              </HStack>
            )}
          </Box>
        </Box>
      </TableFrame>
    </Box>
  );
}
