/**
 * The sign-in page's styles. The page is drawn without Chakra (the first visit downloads only what
 * signing in needs), so these restate the look of the other account screens (PublicPage.tsx) from the
 * theme stylesheet's variables (src/theme/themeCss.ts): every theme, light or dark, styles it. Rules are
 * scoped to the page's classes and sit outside Chakra's cascade layers, so they win when Chakra loads
 * beside the page for a toast.
 */
export const loginPageCss = `
body { margin: 0; }
.login, .login * { box-sizing: border-box; }
.login {
  display: flex; align-items: center; justify-content: center; min-height: 100dvh; padding: 1rem;
  background: var(--w-bg-subtle); color: var(--w-fg);
  font-family: Inter, -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif;
  font-size: 1rem; line-height: 1.5; -webkit-font-smoothing: antialiased;
}
.login-column { display: flex; flex-direction: column; gap: 1rem; width: 100%; max-width: 24rem; }
.login-card {
  background: var(--w-surface); border: 1px solid var(--w-border); border-radius: calc(var(--w-radius) * 1.5);
  padding: 1.5rem; display: flex; flex-direction: column; gap: 1.5rem;
}
.login h1 { margin: 0; font-size: 1.25rem; line-height: 1.75rem; font-weight: 600; }
.login-description { margin: 0.25rem 0 0; color: var(--w-muted); }
.login-form { display: flex; flex-direction: column; gap: 1rem; margin: 0; }
.login-field { display: flex; flex-direction: column; gap: 0.375rem; }
.login-field label { font-size: 0.875rem; font-weight: 500; }
.login-field input {
  font: inherit; font-size: 0.875rem; color: inherit; background: var(--w-bg);
  border: 1px solid var(--w-border-emphasized); border-radius: var(--w-radius); height: 2.5rem; padding: 0 0.75rem;
}
.login-field input:focus-visible { outline: 1px solid var(--w-primary-text); border-color: var(--w-primary-text); }
.login-helper { margin: 0; font-size: 0.75rem; color: var(--w-muted); }
.login-check { display: inline-flex; align-items: center; gap: 0.5rem; font-size: 0.875rem; cursor: pointer; width: fit-content; }
.login-check input { width: 1rem; height: 1rem; margin: 0; accent-color: var(--w-primary); }
.login-button {
  font: inherit; font-weight: 500; font-size: 0.875rem; border-radius: var(--w-radius); border: 1px solid transparent;
  display: inline-flex; align-items: center; justify-content: center; gap: 0.5rem; cursor: pointer;
  height: 2.5rem; padding: 0 1rem; width: 100%; background: var(--w-primary); color: var(--w-primary-fg);
}
.login-button:hover { filter: brightness(0.95); }
.login-button:disabled { cursor: progress; opacity: 0.8; }
.login-button.ghost { background: transparent; color: var(--w-primary-text); height: 2rem; }
.login-button.ghost:hover { background: var(--w-primary-subtle); filter: none; }
.login :focus-visible { outline: 2px solid var(--w-primary-text); outline-offset: 2px; }
.login-spinner {
  width: 1em; height: 1em; border-radius: 50%; border: 2px solid currentColor; border-inline-end-color: transparent;
  animation: login-spin 0.6s linear infinite;
}
@keyframes login-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .login-spinner { animation-duration: 1.5s; } }
.login-alert {
  display: flex; gap: 0.75rem; align-items: flex-start; padding: 0.75rem 1rem; border-radius: var(--w-radius);
  background: var(--w-danger-subtle); color: var(--w-fg); font-size: 0.875rem; font-weight: 500;
  border-inline-start: 4px solid var(--w-danger);
}
.login-links { display: flex; flex-wrap: wrap; justify-content: center; gap: 1rem; font-size: 0.875rem; }
.login-links a { color: var(--w-primary-text); text-underline-offset: 3px; text-decoration: none; }
.login-links a:hover, .login-links a:focus-visible { text-decoration: underline; }
`;
