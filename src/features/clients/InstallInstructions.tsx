import { Code, Heading, Stack, Text } from '@chakra-ui/react';
import type { ClientPlatform } from '../../../contracts/clientVersions';

/** A command to type, kept whole on narrow screens. */
function Command({ children }: { children: string }) {
  return (
    <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-all" p="3" rounded="l2">
      {children}
    </Code>
  );
}

/** How to check a download and take the first steps with it, for the latest version of a platform. */
export function InstallInstructions({ platform, version }: { platform: ClientPlatform; version: string }) {
  if (platform === 'windows') {
    const zip = `warden-${version}-windows.zip`;
    return (
      <Stack gap="2">
        <Heading as="h2" size="md">
          Install on Windows
        </Heading>
        <Text>
          The zip holds warden.exe, the whole client with Node.js built in (nothing to install), and README.txt and
          LICENSE.txt beside it.
        </Text>
        <Text>In PowerShell, check that the SHA-256 matches the one listed, then unpack the zip and run warden.exe:</Text>
        <Command>{`Get-FileHash .\\${zip} -Algorithm SHA256`}</Command>
        <Command>{`Expand-Archive .\\${zip} -DestinationPath .\\warden\n.\\warden\\warden.exe --version\n.\\warden\\warden.exe login\n.\\warden\\warden.exe instances list`}</Command>
      </Stack>
    );
  }
  const tarball = `warden-${version}-container.tar`;
  return (
    <Stack gap="2">
      <Heading as="h2" size="md">
        Run as a container
      </Heading>
      <Text>Check that the SHA-256 matches the one listed, load the image with Docker or Podman, and run it:</Text>
      <Command>{`sha256sum ${tarball}`}</Command>
      <Command>{`docker load -i ${tarball} && docker run --rm warden:${version} --help`}</Command>
      <Text color="fg.muted">
        Keep the sign-in between runs by mounting a folder for it, e.g. <Code>-v warden-config:/root/.config</Code>.
      </Text>
    </Stack>
  );
}
