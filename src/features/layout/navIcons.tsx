import { chakra } from '@chakra-ui/react';

/** A 24×24 stroke icon from one SVG path; decorative, the link or button carries the name. */
function strokeIcon(d: string) {
  return function NavIcon() {
    return (
      <chakra.svg
        viewBox="0 0 24 24"
        boxSize="5"
        flexShrink={0}
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        <path d={d} />
      </chakra.svg>
    );
  };
}

export const InstancesIcon = strokeIcon(
  'M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zm0 0v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
);
export const GroupsIcon = strokeIcon(
  'M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM22 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8',
);
export const LogsIcon = strokeIcon('M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01');
export const BackupsIcon = strokeIcon('M21 8v13H3V8M1 3h22v5H1zM10 12h4');
export const ClientsIcon = strokeIcon('M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5M12 15V3');
export const UsersIcon = strokeIcon('M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z');
export const AuditIcon = strokeIcon('M9 4h6v3H9zM9 5H6a1 1 0 0 0-1 1v14a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V6a1 1 0 0 0-1-1h-3M9 12h6M9 16h4');
export const HostsIcon = strokeIcon(
  'M4 2h16a2 2 0 0 1 2 2v4a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2zM4 14h16a2 2 0 0 1 2 2v4a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2v-4a2 2 0 0 1 2-2zM6 6h.01M6 18h.01',
);
export const DebugIcon = strokeIcon(
  'M9 7V6a3 3 0 1 1 6 0v1M12 20c-3.3 0-6-2.7-6-6v-3a4 4 0 0 1 4-4h4a4 4 0 0 1 4 4v3c0 3.3-2.7 6-6 6zm0 0v-9M6 13H3m18 0h-3',
);
export const ProfileIcon = strokeIcon('M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z');
export const LogOutIcon = strokeIcon('M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9');
export const ThemeIcon = strokeIcon('M12 2.7l5.7 5.7a8 8 0 1 1-11.3 0z');
