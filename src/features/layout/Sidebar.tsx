import { Box, Button, Flex, Stack, Text } from '@chakra-ui/react';
import type { CurrentUser } from '../../../contracts/auth';
import { hasRole, type Role } from '../../../contracts/roles';
import { routes } from '../../../contracts/routes';
import { useLogoutMutation } from '../auth/authApi';
import { ConnectionIndicator } from './ConnectionIndicator';
import {
  AuditIcon,
  BackupsIcon,
  ClientsIcon,
  DebugIcon,
  GroupsIcon,
  HostsIcon,
  InstancesIcon,
  LogOutIcon,
  LogsIcon,
  ProfileIcon,
  UsersIcon,
} from './navIcons';
import { NavItem, SidebarLabel, sidebarRowStyle, type NavItemProps } from './NavItem';
import { ThemeMenu } from './ThemeMenu';

interface NavEntry extends NavItemProps {
  /** Shown only to users with this role (SPEC §2: Users and Debug are for admins). */
  role?: Role;
}

const mainEntries: NavEntry[] = [
  { label: 'Instances', to: routes.instances.path, icon: InstancesIcon },
  { label: 'Groups', to: routes.groups.path, icon: GroupsIcon },
  { label: 'Logs', to: routes.logs.path, icon: LogsIcon },
  { label: 'Backups', to: routes.backups.path, icon: BackupsIcon },
  { label: 'Clients', to: routes.clients.path, icon: ClientsIcon },
  { label: 'Users', to: routes['admin-users'].path, icon: UsersIcon, role: 'admin' },
  { label: 'Audit', to: routes['admin-audit'].path, icon: AuditIcon, role: 'admin' },
  { label: 'Hosts', to: routes['admin-hosts'].path, icon: HostsIcon, role: 'admin' },
  { label: 'Debug', to: routes.debug.path, icon: DebugIcon, role: 'admin' },
];

/** Narrow with icons below md, wide with labels above (SPEC §2). */
export function Sidebar({ user }: { user: CurrentUser }) {
  const [logout, { isLoading: loggingOut }] = useLogoutMutation();
  const entries = mainEntries.filter((entry) => !entry.role || hasRole(user, entry.role));

  return (
    <Flex
      as="nav"
      aria-label="Main"
      direction="column"
      flexShrink={0}
      w={{ base: '16', md: '60' }}
      transition="width 0.2s ease"
      h="100dvh"
      position="sticky"
      top="0"
      p="2"
      gap="2"
      bg="bg.subtle"
      borderRightWidth="1px"
      borderColor="border"
    >
      <Text fontWeight="bold" fontSize="lg" px="3" py="2" textAlign={{ base: 'center', md: 'start' }} aria-hidden="true">
        <Box as="span" display={{ base: 'none', md: 'inline' }}>
          Warden
        </Box>
        <Box as="span" display={{ base: 'inline', md: 'none' }}>
          W
        </Box>
      </Text>

      <Stack as="ul" listStyleType="none" gap="1" flex="1" overflowY="auto">
        {entries.map((entry) => (
          <li key={entry.to}>
            <NavItem label={entry.label} to={entry.to} icon={entry.icon} />
          </li>
        ))}
      </Stack>

      <Stack gap="1" borderTopWidth="1px" borderColor="border" pt="2">
        <ConnectionIndicator />
        <Text fontSize="sm" color="fg.muted" px="3" truncate display={{ base: 'none', md: 'block' }} title={user.email}>
          {user.email}
        </Text>
        <NavItem label="Profile" to={routes.profile.path} icon={ProfileIcon} />
        <Button
          variant="plain"
          {...sidebarRowStyle}
          h="auto"
          fontWeight="normal"
          aria-label="Log out"
          title="Log out"
          loading={loggingOut}
          onClick={() => logout()}
        >
          <LogOutIcon />
          <SidebarLabel>Log out</SidebarLabel>
        </Button>
        <ThemeMenu />
      </Stack>
    </Flex>
  );
}
