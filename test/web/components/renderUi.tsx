import { ChakraProvider } from '@chakra-ui/react';
import { render } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { system } from '../../../src/theme/system';

const Chakra = ({ children }: { children: ReactNode }) => <ChakraProvider value={system}>{children}</ChakraProvider>;

/** A presentational piece on its own, inside the console's Chakra system (rerender keeps it there). */
export const renderUi = (ui: ReactElement) => render(ui, { wrapper: Chakra });
