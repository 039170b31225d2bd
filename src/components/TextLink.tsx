import { Link } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';

/** A link to a screen of the console, styled as Chakra's and routed by the router. */
export function TextLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link asChild color="brand.fg">
      <RouterLink to={to}>{children}</RouterLink>
    </Link>
  );
}
