import { Badge, Box, Button, Code, HStack, Link, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { ClientPlatform, ClientVersion } from '../../../contracts/clientVersions';
import { formatBytes } from '../../../contracts/backupValues';
import { CopyButton } from '../../components/CopyButton';
import { DataTable, type Column } from '../../components/DataTable';
import { formatDate } from '../../components/DateTime';
import { clientDownloadUrl, useClientVersionsQuery } from './clientsApi';
import { InstallInstructions } from './InstallInstructions';
import { RemoveVersionDialog } from './RemoveVersionDialog';

const platformLabels: Record<ClientPlatform, string> = { windows: 'Windows client versions', containers: 'Container client versions' };

function columns(canRemove: boolean, onRemove: (release: ClientVersion) => void): Column<ClientVersion>[] {
  return [
    {
      key: 'version',
      header: 'Version',
      cell: (release) => (
        <HStack gap="2">
          <Text fontWeight="medium">{release.version}</Text>
          {release.latest && (
            <Badge colorPalette="green" variant="subtle">
              latest
            </Badge>
          )}
        </HStack>
      ),
    },
    { key: 'released', header: 'Released', cell: (release) => formatDate(release.releasedAt) },
    { key: 'size', header: 'Size', numeric: true, cell: (release) => formatBytes(release.size) },
    {
      key: 'sha256',
      header: 'SHA-256',
      // In full, two lines of 32 digits, since people compare it by eye with what they downloaded.
      cell: (release) => (
        <HStack gap="2" align="start">
          <Code wordBreak="break-all" whiteSpace="normal" maxW="34ch">
            {release.sha256}
          </Code>
          <CopyButton size="xs" text={release.sha256} label="Copy" aria-label={`Copy the SHA-256 of ${release.version}`} />
        </HStack>
      ),
    },
    {
      key: 'notes',
      header: 'Notes',
      cell: (release) =>
        release.notes ? (
          <Box as="details" maxW="md">
            <Box as="summary" cursor="pointer">
              Release notes
            </Box>
            <Text whiteSpace="pre-wrap" fontSize="sm" mt="2">
              {release.notes}
            </Text>
          </Box>
        ) : (
          <Text color="fg.muted">—</Text>
        ),
    },
    {
      key: 'actions',
      header: 'Actions',
      hiddenHeader: true,
      cell: (release) => (
        <HStack gap="1" role="group" aria-label={`Actions for ${release.version}`}>
          <Button asChild size="xs" variant="outline">
            <Link href={clientDownloadUrl(release)} download={release.fileName}>
              Download
            </Link>
          </Button>
          {canRemove && !release.latest && (
            <Button size="xs" variant="outline" colorPalette="red" onClick={() => onRemove(release)}>
              Remove
            </Button>
          )}
        </HStack>
      ),
    },
  ];
}

/** One platform's versions, newest first, and how to install the latest. */
export function ClientVersionsTable({ platform, canRemove }: { platform: ClientPlatform; canRemove: boolean }) {
  const versions = useClientVersionsQuery(platform);
  const [removing, setRemoving] = useState<ClientVersion | null>(null);
  const latest = versions.data?.find((release) => release.latest);
  return (
    <>
      <DataTable
        label={platformLabels[platform]}
        columns={columns(canRemove, setRemoving)}
        rows={versions.data}
        rowKey={(release) => release.version}
        loading={versions.isLoading}
        fetching={versions.isFetching}
        failed={versions.isError}
        onRetry={versions.refetch}
        emptyText="No versions have been released yet."
      />
      {latest && <InstallInstructions platform={platform} version={latest.version} />}
      <RemoveVersionDialog release={removing} onClose={() => setRemoving(null)} />
    </>
  );
}
