import { Badge, Button, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { fieldErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { Section } from '../../components/Section';
import { useAccountInfoQuery, useResendConfirmationEmailMutation, useUpdateAccountInfoMutation } from '../auth/authApi';

/**
 * The address, whether it is confirmed (with a new link on demand), and changing it: read and
 * changed through /auth/manage/info (SPEC §7); the profile's copy stands in until that answers.
 */
export function EmailSection(profile: { email: string; confirmed: boolean }) {
  const { data: info } = useAccountInfoQuery();
  const email = info?.email ?? profile.email;
  const confirmed = info?.isEmailConfirmed ?? profile.confirmed;
  const [resend, resent] = useResendConfirmationEmailMutation();
  const [changeEmail, change] = useUpdateAccountInfoMutation();
  const [newEmail, setNewEmail] = useState('');
  const errors = fieldErrors(change.error);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const { error } = await changeEmail({ newEmail: newEmail.trim() });
    if (!error) setNewEmail('');
  };

  return (
    <Section title="E-mail">
      <Stack gap="3">
        <HStack gap="3" wrap="wrap">
          <Text fontWeight="medium">{email}</Text>
          <Badge colorPalette={confirmed ? 'green' : 'orange'}>{confirmed ? 'Confirmed' : 'Not confirmed'}</Badge>
        </HStack>
        {!confirmed &&
          (resent.isSuccess ? (
            <Notice title="Check your inbox">We sent a new confirmation link to {email}.</Notice>
          ) : (
            <HStack>
              <Button size="sm" variant="outline" loading={resent.isLoading} onClick={() => resend({ email })}>
                Resend confirmation e-mail
              </Button>
            </HStack>
          ))}
      </Stack>

      <form onSubmit={submit} aria-busy={change.isLoading} noValidate>
        <Stack gap="3" maxW="md">
          {change.isSuccess && change.originalArgs?.newEmail && (
            <Notice title="Check your inbox">
              We sent a confirmation link to {change.originalArgs.newEmail}. Your address changes when you follow it.
            </Notice>
          )}
          <Field.Root required invalid={!!errors.email}>
            <Field.Label>New e-mail</Field.Label>
            <Input type="email" autoComplete="email" value={newEmail} onChange={(event) => setNewEmail(event.target.value)} />
            {errors.email && <Field.ErrorText>{errors.email.join(' ')}</Field.ErrorText>}
          </Field.Root>
          <HStack>
            <Button type="submit" loading={change.isLoading} disabled={newEmail.trim() === ''}>
              Change e-mail
            </Button>
          </HStack>
        </Stack>
      </form>
    </Section>
  );
}
