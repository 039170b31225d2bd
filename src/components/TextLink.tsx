import { Link } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { usePrefetchLink } from '../features/ui/usePrefetchLink';

/**
 * A link to a screen of the console, styled as Chakra's and routed by the router; the target's
 * screen and data start loading on hover or focus.
 */
export function TextLink({ to, children }: { to: string; children: ReactNode }) {
  const prefetch = usePrefetchLink(to);
  return (
    <Link asChild color="brand.fg">
      <RouterLink to={to} {...prefetch}>
        {children}
      </RouterLink>
    </Link>
  );
}
