import { Alert, Button, Checkbox, Field, Input, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { TextLink } from '../../components/TextLink';
import { accountPaths } from './accountPaths';
import { useLoginMutation, useRegistrationOptionsQuery } from './authApi';
import { loginFailureMessage, loginFailureOf } from './loginFailure';
import { PublicPage } from './PublicPage';
import { safeReturnUrl } from './returnUrl';

type Step = 'credentials' | 'twoFactor' | 'recovery';

/** Sign-in: e-mail and password, then the authenticator code (or a recovery code) when the account asks for one. */
export function LoginPage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const [login, { isLoading }] = useLoginMutation();
  const { data: options } = useRegistrationOptionsQuery();

  const [step, setStep] = useState<Step>('credentials');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const [code, setCode] = useState('');
  const [recoveryCode, setRecoveryCode] = useState('');
  const [failure, setFailure] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFailure(null);
    try {
      await login({
        email,
        password,
        remember,
        ...(step === 'twoFactor' && { twoFactorCode: code }),
        ...(step === 'recovery' && { twoFactorRecoveryCode: recoveryCode.trim() }),
      }).unwrap();
      navigate(safeReturnUrl(searchParams.get('returnUrl')), { replace: true });
    } catch (error) {
      const reason = loginFailureOf(error);
      if (reason === 'RequiresTwoFactor') setStep('twoFactor');
      else if (reason) setFailure(loginFailureMessage(reason, step));
      // Anything else (the server down, say) is toasted by the one error path.
    }
  };

  const startOver = () => {
    setStep('credentials');
    setCode('');
    setRecoveryCode('');
    setFailure(null);
  };

  return (
    <PublicPage
      title={step === 'credentials' ? 'Sign in to Warden' : 'Two-factor authentication'}
      tabTitle="Sign in"
      description={step === 'twoFactor' ? 'Enter the 6-digit code from your authenticator app.' : undefined}
      footer={
        step === 'credentials' && (
          <>
            <TextLink to={accountPaths.forgotPassword}>Forgot password?</TextLink>
            {options?.registrationOpen && <TextLink to={accountPaths.register}>Create account</TextLink>}
          </>
        )
      }
    >
      <form onSubmit={submit} aria-busy={isLoading}>
        <Stack gap="4">
          {failure && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Title>{failure}</Alert.Title>
            </Alert.Root>
          )}

          {step === 'credentials' ? (
            <>
              <Field.Root required>
                <Field.Label>E-mail</Field.Label>
                <Input
                  type="email"
                  autoComplete="username"
                  autoFocus
                  value={email}
                  onChange={(event) => setEmail(event.target.value)}
                />
              </Field.Root>
              <Field.Root required>
                <Field.Label>Password</Field.Label>
                <Input
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                />
              </Field.Root>
              <Checkbox.Root checked={remember} onCheckedChange={({ checked }) => setRemember(checked === true)}>
                <Checkbox.HiddenInput />
                <Checkbox.Control />
                <Checkbox.Label>Keep me signed in</Checkbox.Label>
              </Checkbox.Root>
            </>
          ) : step === 'recovery' ? (
            <Field.Root required>
              <Field.Label>Recovery code</Field.Label>
              <Input
                autoComplete="off"
                autoFocus
                maxLength={64}
                value={recoveryCode}
                onChange={(event) => setRecoveryCode(event.target.value)}
              />
              <Field.HelperText>One of the codes you saved when you turned on two-factor sign-in. Each works once.</Field.HelperText>
            </Field.Root>
          ) : (
            <Field.Root required>
              <Field.Label>Authentication code</Field.Label>
              <Input
                inputMode="numeric"
                autoComplete="one-time-code"
                autoFocus
                pattern="[0-9]{6}"
                maxLength={6}
                value={code}
                onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
              />
            </Field.Root>
          )}

          <Button type="submit" loading={isLoading} w="full">
            Sign in
          </Button>
          {step === 'twoFactor' && (
            <Button variant="ghost" size="sm" onClick={() => (setFailure(null), setStep('recovery'))}>
              Use a recovery code
            </Button>
          )}
          {step === 'recovery' && (
            <Button variant="ghost" size="sm" onClick={() => (setFailure(null), setStep('twoFactor'))}>
              Use the authenticator app
            </Button>
          )}
          {step !== 'credentials' && (
            <Button variant="ghost" size="sm" onClick={startOver}>
              Use another account
            </Button>
          )}
        </Stack>
      </form>
    </PublicPage>
  );
}
