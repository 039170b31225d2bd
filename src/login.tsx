/**
 * The sign-in page's entry. login.html holds the page already drawn (scripts/webpack/prerenderLogin.tsx),
 * so it paints as soon as the HTML and theme stylesheet arrive; React and the page's code are asked for
 * only after that first frame, so that on a slow link they do not compete with it. Until they run, the
 * fields take typing and Sign in waits.
 */
requestAnimationFrame(() =>
  setTimeout(() => {
    import(/* webpackChunkName: "login-page" */ './loginPage').catch((error: unknown) => {
      console.error('The sign-in page could not load', error);
    });
  }),
);
