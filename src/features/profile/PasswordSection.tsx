import { Button, HStack, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { PasswordField, RepeatPasswordField } from '../../components/PasswordField';
import { Section } from '../../components/Section';
import { useUpdateAccountInfoMutation } from '../auth/authApi';

const empty = { oldPassword: '', password: '', repeat: '' };

export function PasswordSection() {
  const [changePassword, change] = useUpdateAccountInfoMutation();
  const [fields, setFields] = useState(empty);
  const [submitted, setSubmitted] = useState(false);
  const set = (name: keyof typeof empty) => (value: string) => setFields((current) => ({ ...current, [name]: value }));
  const errors = fieldErrors(change.error);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (fields.repeat !== fields.password) return;
    const { error } = await changePassword({ oldPassword: fields.oldPassword, newPassword: fields.password });
    if (!error) {
      setFields(empty);
      setSubmitted(false);
    }
  };

  return (
    <Section title="Password">
      <form onSubmit={submit} aria-busy={change.isLoading} noValidate>
        <Stack gap="4" maxW="md">
          {change.isSuccess && <Notice title="Your password was changed." />}
          {otherErrors(errors, ['oldPassword', 'password']).map((message) => (
            <Notice key={message} status="error" title={message} />
          ))}
          <PasswordField
            label="Current password"
            isNew={false}
            value={fields.oldPassword}
            onChange={set('oldPassword')}
            errors={errors.oldPassword}
          />
          <PasswordField label="New password" value={fields.password} onChange={set('password')} errors={errors.password} />
          <RepeatPasswordField
            label="Confirm new password"
            value={fields.repeat}
            onChange={set('repeat')}
            password={fields.password}
            strict={submitted}
          />
          <HStack>
            <Button type="submit" loading={change.isLoading}>
              Change password
            </Button>
          </HStack>
        </Stack>
      </form>
    </Section>
  );
}
