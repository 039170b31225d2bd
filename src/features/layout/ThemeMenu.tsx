import { Box, IconButton, Popover, Portal, useBreakpointValue } from '@chakra-ui/react';
import { ThemeSelector } from '../../theme/ThemeSelector';
import { ThemeIcon } from './navIcons';

/**
 * The theme selector: inline in the wide sidebar, behind an icon in the narrow one where a
 * select would not fit. Exactly one selector is mounted, so there is one source of the choice.
 */
export function ThemeMenu() {
  // No server rendering here: evaluate the media query on the first render, without a flash.
  const wide = useBreakpointValue({ base: false, md: true }, { ssr: false });
  if (wide) {
    return (
      <Box px="1" pt="1">
        <ThemeSelector />
      </Box>
    );
  }
  return (
    <Popover.Root positioning={{ placement: 'right-end' }}>
      <Popover.Trigger asChild>
        <IconButton aria-label="Theme" title="Theme" variant="ghost" w="full" color="fg.muted">
          <ThemeIcon />
        </IconButton>
      </Popover.Trigger>
      <Portal>
        <Popover.Positioner>
          <Popover.Content w="64">
            <Popover.Body>
              <ThemeSelector />
            </Popover.Body>
          </Popover.Content>
        </Popover.Positioner>
      </Portal>
    </Popover.Root>
  );
}
