import { useId, useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { DeferredOverlays } from '../ui/DeferredOverlays';
import { usePrefetchLink } from '../ui/usePrefetchLink';
import { accountPaths } from './accountPaths';
import { useLoginMutation, useRegistrationOptionsQuery } from './authApi';
import { loginFailureMessage, loginFailureOf } from './loginFailure';
import { loginPageCss } from './loginPageCss';
import { safeReturnUrl } from './returnUrl';

type Step = 'credentials' | 'twoFactor' | 'recovery';

/**
 * Sign-in: e-mail and password, then the authenticator code (or a recovery code) when the account asks
 * for one. Drawn with plain elements and its own few styles, not Chakra, so that a first visit
 * downloads only what signing in needs; it looks like the other account screens (PublicPage.tsx).
 */
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
  const headingId = useId();

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

  const title = step === 'credentials' ? 'Sign in to Warden' : 'Two-factor authentication';
  return (
    <main className="login">
      <title>Sign in · Warden</title>
      <style href="login-page" precedence="default">
        {loginPageCss}
      </style>
      <div className="login-column">
        <section className="login-card" aria-labelledby={headingId}>
          <header>
            <h1 id={headingId}>{title}</h1>
            {step === 'twoFactor' && <p className="login-description">Enter the 6-digit code from your authenticator app.</p>}
          </header>
          <form className="login-form" onSubmit={submit} aria-busy={isLoading}>
            {failure && (
              <div className="login-alert" role="alert">
                {failure}
              </div>
            )}

            {step === 'credentials' ? (
              <>
                <TextField
                  label="E-mail"
                  type="email"
                  autoComplete="username"
                  autoFocus
                  value={email}
                  onChange={(event) => setEmail(event.target.value)}
                />
                <TextField
                  label="Password"
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                />
                <label className="login-check">
                  <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />
                  Keep me signed in
                </label>
              </>
            ) : step === 'recovery' ? (
              <TextField
                label="Recovery code"
                helper="One of the codes you saved when you turned on two-factor sign-in. Each works once."
                autoComplete="off"
                autoFocus
                maxLength={64}
                value={recoveryCode}
                onChange={(event) => setRecoveryCode(event.target.value)}
              />
            ) : (
              <TextField
                label="Authentication code"
                inputMode="numeric"
                autoComplete="one-time-code"
                autoFocus
                pattern="[0-9]{6}"
                maxLength={6}
                value={code}
                onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
              />
            )}

            <button type="submit" className="login-button" disabled={isLoading}>
              {isLoading && <span className="login-spinner" aria-hidden="true" />}
              Sign in
            </button>
            {step === 'twoFactor' && (
              <GhostButton onClick={() => (setFailure(null), setStep('recovery'))}>Use a recovery code</GhostButton>
            )}
            {step === 'recovery' && (
              <GhostButton onClick={() => (setFailure(null), setStep('twoFactor'))}>Use the authenticator app</GhostButton>
            )}
            {step !== 'credentials' && <GhostButton onClick={startOver}>Use another account</GhostButton>}
          </form>
        </section>
        {step === 'credentials' && (
          <nav className="login-links" aria-label="Account">
            <FooterLink to={accountPaths.forgotPassword}>Forgot password?</FooterLink>
            {options?.registrationOpen && <FooterLink to={accountPaths.register}>Create account</FooterLink>}
          </nav>
        )}
      </div>
      <DeferredOverlays />
    </main>
  );
}

/** A required text input with its label and, when given, a line of help under it. */
function TextField({ label, helper, ...input }: { label: string; helper?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="login-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} required aria-describedby={helper ? `${id}-helper` : undefined} {...input} />
      {helper && (
        <p id={`${id}-helper`} className="login-helper">
          {helper}
        </p>
      )}
    </div>
  );
}

function GhostButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="login-button ghost" onClick={onClick}>
      {children}
    </button>
  );
}

/** A link to another account screen; its chunk starts loading on hover or focus. */
function FooterLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} {...usePrefetchLink(to)}>
      {children}
    </Link>
  );
}
