/**
 * The public account screens beside /login. The e-mails the server sends link to the last
 * two, so their paths are a contract with the server as much as SPEC §2's screens are.
 */
export const accountPaths = {
  register: '/register',
  forgotPassword: '/forgot-password',
  confirmEmail: '/confirm-email',
  resetPassword: '/reset-password',
} as const;
