/**
 * The sign-in page's entry. login.html holds the page already drawn (scripts/webpack/prerenderLogin.tsx),
 * and adds this script only once that drawing is on screen (src/afterFirstPaint.js), so that on a slow
 * link React and the page's code do not compete with the first paint. Until they run, the fields take
 * typing and Sign in waits.
 */
import(/* webpackChunkName: "login-page" */ './loginPage').catch((error: unknown) => {
  console.error('The sign-in page could not load', error);
});
