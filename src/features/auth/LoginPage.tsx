import { useEffect, useId, useState, type ComponentType, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { accountPaths } from './accountPaths';
import { loginPageCss } from './loginPageCss';
import { loginFailureMessage, registrationOpen, signIn } from './signIn';

type Step = 'credentials' | 'twoFactor' | 'recovery';

/** How the page links to the other account screens: plain anchors unless the console gives its router's links. */
export type AccountLink = ComponentType<{ to: string; children: ReactNode }>;

const Anchor: AccountLink = ({ to, children }) => <a href={to}>{children}</a>;

export interface LoginPageProps {
  /** Called once the session cookie is set: the sign-in page loads the console, the console goes back where it was. */
  onSignedIn: () => void | Promise<void>;
  Link?: AccountLink;
}

/**
 * Sign-in: e-mail and password, then the authenticator code (or a recovery code) when the account asks
 * for one. Drawn with plain elements and its own few styles, and calling the server with plain fetch,
 * so that it needs neither Chakra, Redux nor the router: a first visit loads it alone (src/login.tsx),
 * and the console shows the same page when a session ends (SignInRoute.tsx). It looks like the other
 * account screens (PublicPage.tsx).
 */
export function LoginPage({ onSignedIn, Link = Anchor }: LoginPageProps) {
  const [open, setOpen] = useState(false);
  // The build draws this page into login.html: until React has taken it over, Sign in waits.
  const [ready, setReady] = useState(false);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<Step>('credentials');
  // Kept from the first step for the code steps, which send them again with the code.
  const [account, setAccount] = useState({ email: '', password: '', remember: false });
  const [failure, setFailure] = useState<string | null>(null);
  const headingId = useId();

  useEffect(() => {
    setReady(true);
    let current = true;
    void registrationOpen().then((isOpen) => current && setOpen(isOpen));
    return () => {
      current = false;
    };
  }, []);

  // The fields are the browser's own (uncontrolled): what someone typed before React took the drawn page
  // over stays, and is read from the form when it is sent.
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = (name: string) => event.currentTarget.elements.namedItem(name) as HTMLInputElement | null;
    const field = (name: string) => input(name)?.value ?? '';
    const { email, password, remember } =
      step === 'credentials' ? { email: field('email'), password: field('password'), remember: input('remember')?.checked === true } : account;
    if (step === 'credentials') setAccount({ email, password, remember });
    setFailure(null);
    setBusy(true);
    try {
      const answer = await signIn(
        {
          email,
          password,
          ...(step === 'twoFactor' && { twoFactorCode: field('code').replace(/\D/g, '') }),
          ...(step === 'recovery' && { twoFactorRecoveryCode: field('recoveryCode').trim() }),
        },
        remember,
      );
      if (answer.ok) {
        await onSignedIn();
        return;
      }
      if (answer.failure === 'RequiresTwoFactor') setStep('twoFactor');
      else setFailure(answer.failure ? loginFailureMessage(answer.failure, step) : `Could not sign in: ${answer.detail}`);
    } finally {
      setBusy(false);
    }
  };

  const startOver = () => {
    setStep('credentials');
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
          {/* POST: should the browser ever send the form itself, no password goes into an address. */}
          <form className="login-form" method="post" onSubmit={submit} aria-busy={busy}>
            {failure && (
              <div className="login-alert" role="alert">
                {failure}
              </div>
            )}
            {step === 'credentials' ? (
              <>
                <TextField label="E-mail" name="email" type="email" autoComplete="username" autoFocus defaultValue={account.email} />
                <TextField label="Password" name="password" type="password" autoComplete="current-password" />
                <label className="login-check">
                  <input type="checkbox" name="remember" defaultChecked={account.remember} />
                  Keep me signed in
                </label>
              </>
            ) : step === 'recovery' ? (
              <TextField
                label="Recovery code"
                helper="One of the codes you saved when you turned on two-factor sign-in. Each works once."
                name="recoveryCode"
                autoComplete="off"
                autoFocus
                maxLength={64}
              />
            ) : (
              <TextField
                label="Authentication code"
                inputMode="numeric"
                name="code"
                autoComplete="one-time-code"
                autoFocus
                pattern="[0-9]{6}"
                maxLength={6}
              />
            )}

            <button type="submit" className="login-button" disabled={busy || !ready}>
              {busy && <span className="login-spinner" aria-hidden="true" />}
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
            <Link to={accountPaths.forgotPassword}>Forgot password?</Link>
            {open && <Link to={accountPaths.register}>Create account</Link>}
          </nav>
        )}
      </div>
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
