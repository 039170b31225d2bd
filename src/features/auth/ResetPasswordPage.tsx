import { Button, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { routes } from '../../../contracts/routes';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { Notice } from '../../components/Notice';
import { PasswordField, RepeatPasswordField } from '../../components/PasswordField';
import { TextLink } from '../../components/TextLink';
import { accountPaths } from './accountPaths';
import { useResetPasswordMutation } from './authApi';
import { PublicPage } from './PublicPage';

/** Where the reset e-mail's link lands: choose a new password. */
export function ResetPasswordPage() {
  const [searchParams] = useSearchParams();
  const email = searchParams.get('email') ?? '';
  const resetCode = searchParams.get('code') ?? '';
  const [resetPassword, { isLoading, isSuccess, error }] = useResetPasswordMutation();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (repeat !== password) return;
    resetPassword({ email, resetCode, newPassword: password });
  };

  const footer = <TextLink to={routes.login.path}>Back to sign in</TextLink>;
  if (email === '' || resetCode === '') {
    return (
      <PublicPage title="Reset password" footer={footer}>
        <Notice status="error" title="This link is incomplete.">
          Open the link from the e-mail again, or <TextLink to={accountPaths.forgotPassword}>ask for a new one</TextLink>.
        </Notice>
      </PublicPage>
    );
  }
  if (isSuccess) {
    return (
      <PublicPage title="Reset password" footer={<TextLink to={routes.login.path}>Sign in</TextLink>}>
        <Notice title="Your password was reset.">Sign in with your new password.</Notice>
      </PublicPage>
    );
  }

  const { InvalidToken: invalidToken, ...errors } = fieldErrors(error);
  return (
    <PublicPage title="Reset password" description={`Choose a new password for ${email}.`} footer={footer}>
      <form onSubmit={submit} aria-busy={isLoading} noValidate>
        <Stack gap="4">
          {invalidToken && (
            <Notice status="error" title="This reset link is invalid or has expired.">
              <TextLink to={accountPaths.forgotPassword}>Ask for a new link</TextLink>
            </Notice>
          )}
          {otherErrors(errors, ['password']).map((message) => (
            <Notice key={message} status="error" title={message} />
          ))}
          <PasswordField label="New password" value={password} onChange={setPassword} errors={errors.password} autoFocus />
          <RepeatPasswordField label="Confirm new password" value={repeat} onChange={setRepeat} password={password} strict={submitted} />
          <Button type="submit" loading={isLoading} w="full">
            Reset password
          </Button>
        </Stack>
      </form>
    </PublicPage>
  );
}
