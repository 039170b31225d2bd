import { Button, Field, Input, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { routes } from '../../../contracts/routes';
import { errorStatus } from '../../api/problemText';
import { fieldErrors, otherErrors } from '../../components/fieldErrors';
import { LoadingState } from '../../components/ListStates';
import { Notice } from '../../components/Notice';
import { PasswordField, RepeatPasswordField } from '../../components/PasswordField';
import { TextLink } from '../../components/TextLink';
import { useRegisterMutation, useRegistrationOptionsQuery } from './authApi';
import { PublicPage } from './PublicPage';

const closed = 'Registration is closed. Ask an administrator to create an account for you.';

/** Self-service sign-up, offered only while the server allows it (WARDEN_ALLOW_REGISTRATION). */
export function RegisterPage() {
  const { data: options, isLoading: asking } = useRegistrationOptionsQuery();
  const [register, { isLoading, isSuccess, error, originalArgs }] = useRegisterMutation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [submitted, setSubmitted] = useState(false);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    if (repeat !== password) return;
    register({ email: email.trim(), password });
  };

  const errors = fieldErrors(error);
  const footer = <TextLink to={routes.login.path}>Back to sign in</TextLink>;

  let body;
  if (asking) body = <LoadingState label="Loading…" />;
  else if (!options?.registrationOpen || errorStatus(error) === 403) body = <Notice status="info" title={closed} />;
  else if (isSuccess) {
    body = (
      <Notice title="Check your inbox">
        We sent a confirmation link to {originalArgs?.email}. Follow it, then sign in.
      </Notice>
    );
  } else {
    body = (
      <form onSubmit={submit} aria-busy={isLoading} noValidate>
        <Stack gap="4">
          {otherErrors(errors, ['email', 'password']).map((message) => (
            <Notice key={message} status="error" title={message} />
          ))}
          <Field.Root required invalid={!!errors.email}>
            <Field.Label>E-mail</Field.Label>
            <Input type="email" autoComplete="username" autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />
            {errors.email && <Field.ErrorText>{errors.email.join(' ')}</Field.ErrorText>}
          </Field.Root>
          <PasswordField label="Password" value={password} onChange={setPassword} errors={errors.password} />
          <RepeatPasswordField label="Confirm password" value={repeat} onChange={setRepeat} password={password} strict={submitted} />
          <Button type="submit" loading={isLoading} w="full">
            Create account
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <PublicPage title="Create account" footer={footer}>
      {body}
    </PublicPage>
  );
}
