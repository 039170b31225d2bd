import { ChakraProvider } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { system } from '../../theme/system';
import { Overlays } from './Overlays';

/**
 * Chakra's styles and the overlays, around every screen but sign-in. The sign-in page is drawn
 * without Chakra so that a first visit does not download it; this frame loads with the screen
 * after it (the router wraps them, src/app/router.tsx).
 */
export function ChakraFrame({ children }: { children?: ReactNode }) {
  return (
    <ChakraProvider value={system}>
      {children}
      <Overlays />
    </ChakraProvider>
  );
}
