import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { LoginPage } from '../../src/features/auth/LoginPage';

/**
 * The sign-in page drawn at build time, for login.html: the browser paints the form as soon as the
 * HTML and theme stylesheet arrive, and src/login.tsx hydrates it once React has loaded, instead of
 * showing nothing until then. `head` is what React hoists there (the page's title and styles).
 */
export function prerenderedLoginPage(): { head: string; body: string } {
  const html = renderToString(
    <StrictMode>
      <LoginPage onSignedIn={() => undefined} />
    </StrictMode>,
  );
  const main = html.indexOf('<main');
  if (main < 0) throw new Error('The sign-in page did not render a <main> element');
  return { head: html.slice(0, main), body: html.slice(main) };
}
