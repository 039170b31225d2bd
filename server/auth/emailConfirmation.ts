import type { ConfirmEmailQuery } from '../../contracts/auth';
import type { AppContext } from '../context';
import * as users from '../db/users';
import { HttpProblem } from '../http/problems';
import type { Mailer } from '../mail/mailer';
import { confirmationMail } from '../mail/messages';
import { auditAuth } from './authAudit';
import { issueCode, redeemCode } from './emailCodes';
import type { ClientInfo } from './sessions';
import { hashToken, newToken } from './tokens';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'> & { mailer: Mailer };

/**
 * Mails a confirmation link: for the user's address, or, with `newEmail`, for the address they want
 * to change to (which takes effect only when that link is used).
 */
export async function sendConfirmation(ctx: Ctx, user: Pick<users.User, 'id' | 'email'>, newEmail?: string): Promise<void> {
  const to = newEmail ?? user.email;
  const code = await issueCode(ctx, user.id, newEmail ? 'change-email' : 'confirm', to);
  await ctx.mailer.send(confirmationMail(ctx.config.publicUrl, { to, userId: user.id, code, changedEmail: newEmail }));
}

/**
 * POST /auth/resendConfirmationEmail. Mails only an enabled user whose address is not confirmed yet;
 * the caller cannot tell which happened.
 */
export async function resendConfirmation(ctx: Ctx, email: string, client: ClientInfo): Promise<void> {
  const user = await users.findByEmail(ctx.db, email);
  const send = !!user && !user.disabled && !user.emailConfirmed;
  if (send) await sendConfirmation(ctx, user);
  // The code's cost without the writes, so a known address does not take noticeably longer.
  else hashToken(newToken());
  await auditAuth(ctx, client, {
    userId: user?.id ?? null,
    action: 'auth.resendConfirmationEmail',
    target: users.normalizeEmail(email),
    outcome: 'success',
    detail: { sent: send },
  });
}

/**
 * GET /auth/confirmEmail: confirms the address the code was sent to, or, with changedEmail, moves
 * the account to that (confirmed) address. Any bad, used or expired code is a 401, as in Identity.
 */
export async function confirmEmail(ctx: Pick<AppContext, 'db' | 'clock'>, query: ConfirmEmailQuery, client: ClientInfo) {
  const user = await users.findById(ctx.db, query.userId);
  const changedEmail = query.changedEmail ? users.normalizeEmail(query.changedEmail) : undefined;
  const audit = (outcome: 'success' | 'failure', detail?: Record<string, unknown>) =>
    auditAuth(ctx, client, {
      userId: user?.id ?? null,
      action: 'auth.confirmEmail',
      target: changedEmail ?? user?.email ?? query.userId,
      outcome,
      detail: { ...(changedEmail && { changedEmail }), ...detail },
    });
  const refuse = async (cause: string) => {
    await audit('failure', { cause });
    return new HttpProblem(401, 'The confirmation link is not valid, was already used or has expired.');
  };

  if (!user || user.disabled) throw await refuse(user ? 'Disabled' : 'UnknownUser');
  const purpose = changedEmail ? 'change-email' : 'confirm';
  if (!(await redeemCode(ctx, user, purpose, query.code, changedEmail ?? user.email))) throw await refuse('InvalidToken');
  if (changedEmail) {
    try {
      await users.changeEmail(ctx.db, user.id, changedEmail);
    } catch (error) {
      if (error instanceof users.DuplicateEmailError) throw await refuse('DuplicateEmail');
      throw error;
    }
  } else {
    await users.markEmailConfirmed(ctx.db, user.id);
  }
  await audit('success', changedEmail ? { previousEmail: user.email } : undefined);
}
