import { Button, Field, HStack, Input, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { FieldErrors } from '../../components/fieldErrors';
import { PasswordField } from '../../components/PasswordField';
import type { ModalBodyProps } from '../ui/modalBody';

export interface ConfirmIdentityProps {
  confirmLabel: string;
  /** For actions that weaken the account: the confirm button is red. */
  destructive?: boolean;
  /** The server's complaints about the last answer, shown beside the field. */
  errors?: FieldErrors;
}

/** What the modal closes with: the proof the server asks for before a two-factor change. */
export type IdentityProof = { currentPassword: string } | { twoFactorCode: string };

export const isIdentityProof = (value: unknown): value is IdentityProof =>
  typeof value === 'object' && value !== null && ('currentPassword' in value || 'twoFactorCode' in value);

/**
 * Asks for the current password (or a code from the authenticator app) before two-factor sign-in
 * is turned off or its recovery codes replaced: a session alone may be someone else's.
 */
export function ConfirmIdentityModal({ props, close }: ModalBodyProps<ConfirmIdentityProps>) {
  const [useCode, setUseCode] = useState(!!props.errors?.twoFactorCode);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const ready = useCode ? code.length === 6 : password.length > 0;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (ready) close(useCode ? { twoFactorCode: code } : { currentPassword: password });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="4" pt="2">
        {useCode ? (
          <Field.Root required invalid={!!props.errors?.twoFactorCode}>
            <Field.Label>Authentication code</Field.Label>
            <Input
              inputMode="numeric"
              autoComplete="one-time-code"
              autoFocus
              maxLength={6}
              value={code}
              onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
            />
            {props.errors?.twoFactorCode && <Field.ErrorText>{props.errors.twoFactorCode.join(' ')}</Field.ErrorText>}
          </Field.Root>
        ) : (
          <PasswordField
            label="Current password"
            isNew={false}
            autoFocus
            value={password}
            onChange={setPassword}
            errors={props.errors?.currentPassword}
          />
        )}
        <Button variant="plain" alignSelf="start" px="0" onClick={() => setUseCode(!useCode)}>
          {useCode ? 'Use your password instead' : 'Use a code from your authenticator app instead'}
        </Button>
        <HStack justify="flex-end" gap="3">
          <Button variant="outline" onClick={() => close(false)}>
            Cancel
          </Button>
          <Button type="submit" colorPalette={props.destructive ? 'red' : undefined} disabled={!ready}>
            {props.confirmLabel}
          </Button>
        </HStack>
      </Stack>
    </form>
  );
}
