import { Button, Code, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useEffect, useEffectEvent, useState, type FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { CopyButton } from '../../components/CopyButton';
import { fieldErrors } from '../../components/fieldErrors';
import { ErrorState, LoadingState } from '../../components/ListStates';
import { Section } from '../../components/Section';
import { useTwoFactorMutation, useTwoFactorStatusQuery } from '../auth/authApi';
import { QrCode } from './QrCode';
import { RecoveryCodes } from './RecoveryCodes';
import { recoveryCodesKey, recoveryCodesResetRequested, twoFactorDisableRequested } from './twoFactorSaga';

/** The otpauth URI authenticator apps read from the QR code (Google's Key URI format). */
export const otpauthUri = (email: string, sharedKey: string) =>
  `otpauth://totp/Warden:${encodeURIComponent(email)}?secret=${sharedKey.replace(/\s/g, '')}&issuer=Warden&digits=6&period=30`;

/** The key as a person types it: groups of four. */
export const groupedKey = (sharedKey: string) => sharedKey.replace(/\s/g, '').match(/.{1,4}/g)?.join(' ') ?? '';

/** Two-factor sign-in: enrol with an authenticator app, recovery codes, turning it off. */
export function TwoFactorSection({ email, enabled }: { email: string; enabled: boolean }) {
  const dispatch = useAppDispatch();
  const [enrolling, setEnrolling] = useState(false);
  // Enrolment ends when the profile says two-factor is on.
  if (enabled && enrolling) setEnrolling(false);
  // Asked only when needed: the first ask creates the shared key on the server.
  const status = useTwoFactorStatusQuery(undefined, { skip: !enabled && !enrolling });
  const [twoFactor, outcome] = useTwoFactorMutation({ fixedCacheKey: recoveryCodesKey });

  // Recovery codes are shown once: leaving the profile forgets them.
  const forgetCodes = useEffectEvent(() => outcome.reset());
  useEffect(() => () => forgetCodes(), []);
  const codes = outcome.data?.recoveryCodes;

  let body;
  if (codes && codes.length > 0) {
    body = <RecoveryCodes codes={codes} email={email} onDone={outcome.reset} />;
  } else if (!enabled && !enrolling) {
    body = (
      <HStack>
        <Button onClick={() => setEnrolling(true)}>Enable two-factor</Button>
      </HStack>
    );
  } else if (status.isLoading) {
    body = <LoadingState label="Loading two-factor settings…" />;
  } else if (!status.data) {
    body = <ErrorState title="Could not load the two-factor settings." onRetry={status.refetch} />;
  } else if (!status.data.isTwoFactorEnabled) {
    body = (
      <Enrolment
        email={email}
        sharedKey={status.data.sharedKey}
        verify={(twoFactorCode) => twoFactor({ enable: true, twoFactorCode })}
        verifying={outcome.isLoading}
        error={outcome.error}
        onCancel={() => {
          setEnrolling(false);
          outcome.reset();
        }}
      />
    );
  } else {
    const left = status.data.recoveryCodesLeft;
    body = (
      <Stack gap="4">
        <Text>
          Recovery codes left: <strong>{left}</strong>
          {left <= 3 && ' — reset them soon, before you run out.'}
        </Text>
        <HStack gap="3" wrap="wrap">
          <Button variant="outline" onClick={() => dispatch(recoveryCodesResetRequested())}>
            Reset recovery codes
          </Button>
          <Button variant="outline" colorPalette="red" onClick={() => dispatch(twoFactorDisableRequested())}>
            Disable two-factor
          </Button>
        </HStack>
      </Stack>
    );
  }

  return (
    <Section
      title="Two-factor authentication"
      description={
        enabled
          ? 'On: signing in asks for a code from your authenticator app.'
          : 'Off: with it on, signing in also asks for a code from an authenticator app.'
      }
    >
      {body}
    </Section>
  );
}

interface EnrolmentProps {
  email: string;
  sharedKey: string;
  verify: (code: string) => unknown;
  verifying: boolean;
  error: Parameters<typeof fieldErrors>[0];
  onCancel: () => void;
}

/** Scan (or type) the key, then prove it with a first code. */
function Enrolment({ email, sharedKey, verify, verifying, error, onCancel }: EnrolmentProps) {
  const [code, setCode] = useState('');
  const wrongCode = error ? (fieldErrors(error).twoFactorCode ?? ['That code was not accepted.']) : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    verify(code);
  };

  return (
    <Stack gap="5">
      <Stack gap="2">
        <Text>1. Scan this QR code with your authenticator app (Google Authenticator, Aegis, 1Password …).</Text>
        <QrCode value={otpauthUri(email, sharedKey)} label="QR code for your authenticator app" />
      </Stack>
      <Stack gap="2">
        <Text>Or enter this key by hand:</Text>
        <HStack gap="3" wrap="wrap">
          <Code fontSize="md" px="2" py="1">
            {groupedKey(sharedKey)}
          </Code>
          <CopyButton text={sharedKey.replace(/\s/g, '')} label="Copy key" />
        </HStack>
      </Stack>
      <form onSubmit={submit} aria-busy={verifying} noValidate>
        <Stack gap="3" maxW="xs">
          <Text>2. Enter the 6-digit code the app shows.</Text>
          <Field.Root required invalid={!!wrongCode}>
            <Field.Label>Authentication code</Field.Label>
            <Input
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              value={code}
              onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
            />
            {wrongCode && <Field.ErrorText>{wrongCode.join(' ')}</Field.ErrorText>}
          </Field.Root>
          <HStack gap="3">
            <Button type="submit" loading={verifying} disabled={code.length !== 6}>
              Verify
            </Button>
            <Button variant="ghost" onClick={onCancel}>
              Cancel
            </Button>
          </HStack>
        </Stack>
      </form>
    </Stack>
  );
}
