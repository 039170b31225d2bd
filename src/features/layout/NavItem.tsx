import { Link, Text } from '@chakra-ui/react';
import type { ComponentType } from 'react';
import { NavLink } from 'react-router-dom';
import { usePrefetchLink } from '../ui/usePrefetchLink';

export interface NavItemProps {
  label: string;
  to: string;
  icon: ComponentType;
}

/** Styles shared by sidebar links and buttons: a row with an icon, and the label from md up. */
export const sidebarRowStyle = {
  display: 'flex',
  alignItems: 'center',
  justifyContent: { base: 'center', md: 'flex-start' },
  gap: '3',
  px: '3',
  py: '2',
  w: 'full',
  rounded: 'l2',
  color: 'fg.muted',
  textDecoration: 'none',
  _hover: { bg: 'bg.muted', color: 'fg', textDecoration: 'none' },
} as const;

/** Below md only the icon shows, so the link is named by aria-label at every width. */
export function SidebarLabel({ children }: { children: string }) {
  return (
    <Text as="span" display={{ base: 'none', md: 'inline' }} truncate>
      {children}
    </Text>
  );
}

/** A sidebar link; NavLink marks the current screen with aria-current="page". */
export function NavItem({ label, to, icon: Icon }: NavItemProps) {
  const prefetch = usePrefetchLink(to);
  return (
    <Link asChild {...sidebarRowStyle} _currentPage={{ bg: 'brand.subtle', color: 'brand.fg', fontWeight: 'semibold' }}>
      <NavLink to={to} aria-label={label} title={label} {...prefetch}>
        <Icon />
        <SidebarLabel>{label}</SidebarLabel>
      </NavLink>
    </Link>
  );
}
