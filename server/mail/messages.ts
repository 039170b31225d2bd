import type { Mail } from './mailer';

// The texts of the e-mails Warden sends. Links lead to the console's pages, which call the API.

function link(publicUrl: string, page: string, query: Record<string, string>): string {
  return `${publicUrl}${page}?${new URLSearchParams(query).toString()}`;
}

export function confirmationMail(
  publicUrl: string,
  message: { to: string; userId: string; code: string; changedEmail?: string },
): Mail {
  const { to, userId, code, changedEmail } = message;
  const url = link(publicUrl, '/confirm-email', { userId, code, ...(changedEmail && { changedEmail }) });
  const what = changedEmail ? 'your new e-mail address' : 'your e-mail address';
  return {
    to,
    subject: changedEmail ? 'Confirm your new e-mail address for Warden' : 'Confirm your e-mail address for Warden',
    text: [
      `Confirm ${what} (${to}) for Warden by opening this link:`,
      '',
      url,
      '',
      'The link works once, within 24 hours. If you did not ask for this, ignore this e-mail.',
    ].join('\n'),
  };
}

export function passwordResetMail(publicUrl: string, message: { to: string; code: string }): Mail {
  const { to, code } = message;
  return {
    to,
    subject: 'Reset your Warden password',
    text: [
      'Choose a new Warden password by opening this link:',
      '',
      link(publicUrl, '/reset-password', { email: to, code }),
      '',
      `Or send this reset code with POST /auth/resetPassword: ${code}`,
      '',
      'The code works once, within an hour, and only the newest one you asked for. If you did not ask for this, ignore this e-mail: your password stays as it is.',
    ].join('\n'),
  };
}
