import { Box, Button, HStack, List, Stack } from '@chakra-ui/react';
import { CopyButton } from '../../components/CopyButton';
import { Notice } from '../../components/Notice';

interface RecoveryCodesProps {
  codes: string[];
  email: string;
  onDone: () => void;
}

/** New recovery codes, shown this once: to copy or download before they are gone. */
export function RecoveryCodes({ codes, email, onDone }: RecoveryCodesProps) {
  const text = [`Warden recovery codes for ${email}`, 'Each code signs you in once.', '', ...codes, ''].join('\n');
  return (
    <Stack gap="4">
      <Notice status="warning" title="Save your recovery codes now">
        They are shown only this once. If you lose your authenticator, each code lets you sign in one time. Keep them
        somewhere safe, away from this device.
      </Notice>
      <List.Root
        aria-label="Recovery codes"
        listStyleType="none"
        display="grid"
        gridTemplateColumns="repeat(2, max-content)"
        columnGap="8"
        rowGap="1"
        fontFamily="mono"
        p="4"
        bg="bg.muted"
        rounded="l2"
      >
        {codes.map((code) => (
          <List.Item key={code}>{code}</List.Item>
        ))}
      </List.Root>
      <HStack gap="3" wrap="wrap">
        <CopyButton text={codes.join('\n')} label="Copy codes" />
        <Button asChild size="sm" variant="outline">
          <a href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`} download="warden-recovery-codes.txt">
            Download
          </a>
        </Button>
        <Box flex="1" />
        <Button size="sm" onClick={onDone}>
          I have saved them
        </Button>
      </HStack>
    </Stack>
  );
}
