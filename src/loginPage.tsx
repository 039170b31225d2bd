import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { LoginPage } from './features/auth/LoginPage';
import { safeReturnUrl } from './features/auth/returnUrl';

/**
 * The sign-in page a first visit loads (the server answers /login with login.html, the page already drawn;
 * src/login.tsx loads this): React and the page, without Redux, the router or Chakra. Signed in, the
 * browser loads the console where the person was going.
 */
const signedIn = () => window.location.replace(safeReturnUrl(new URLSearchParams(window.location.search).get('returnUrl')));

const root = document.getElementById('root');
if (!root) throw new Error('login.html has no #root element');
const page = (
  <StrictMode>
    <LoginPage onSignedIn={signedIn} />
  </StrictMode>
);
// The build drew the page into login.html (scripts/webpack/prerenderLogin.tsx): React takes it over.
if (root.firstElementChild) hydrateRoot(root, page);
else createRoot(root).render(page);
