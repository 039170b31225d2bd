import { Button, Field, Input, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { routes } from '../../../contracts/routes';
import { Notice } from '../../components/Notice';
import { TextLink } from '../../components/TextLink';
import { useForgotPasswordMutation } from './authApi';
import { PublicPage } from './PublicPage';

/** Never says whether the address has an account: the same words for every address (no user enumeration). */
export const resetLinkSent = 'If an account exists for that address, we sent it a link to reset the password.';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [forgotPassword, { isLoading, isSuccess }] = useForgotPasswordMutation();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    forgotPassword({ email: email.trim() });
  };

  return (
    <PublicPage
      title="Forgot password"
      description="Enter the e-mail address you sign in with, and we send you a link to choose a new password."
      footer={<TextLink to={routes.login.path}>Back to sign in</TextLink>}
    >
      {isSuccess ? (
        <Notice title="Check your inbox">{resetLinkSent}</Notice>
      ) : (
        <form onSubmit={submit} aria-busy={isLoading}>
          <Stack gap="4">
            <Field.Root required>
              <Field.Label>E-mail</Field.Label>
              <Input type="email" autoComplete="username" autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />
            </Field.Root>
            <Button type="submit" loading={isLoading} w="full">
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
    </PublicPage>
  );
}
