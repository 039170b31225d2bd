import type { ResetPasswordRequest } from '../../contracts/auth';
import type { AppContext } from '../context';
import { setPassword } from '../db/adminUsers';
import * as users from '../db/users';
import type { Mailer } from '../mail/mailer';
import { passwordResetMail } from '../mail/messages';
import { auditAuth } from './authAudit';
import { findCode, issueCode, useCode } from './emailCodes';
import { identityProblem } from './identityErrors';
import { unlockEverywhere } from './lockout';
import { passwordErrors } from './passwordRules';
import { endAllSessions, type ClientInfo } from './sessions';
import { hashToken, newToken } from './tokens';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config' | 'hub'> & { mailer: Mailer };

/**
 * POST /auth/forgotPassword. Mails a reset code (good for an hour, once; a newer code voids it) to any enabled user, confirmed address or not (an
 * admin-made account may never have confirmed; using the code proves the address anyway). The
 * caller cannot tell whether the address is known.
 */
export async function forgotPassword(ctx: Ctx, email: string, client: ClientInfo): Promise<void> {
  const user = await users.findByEmail(ctx.db, email);
  const send = !!user && !user.disabled;
  if (send) {
    const code = await issueCode(ctx, user.id, 'reset', user.email);
    await ctx.mailer.send(passwordResetMail(ctx.config.publicUrl, { to: user.email, code }));
  } else {
    // The code's cost without the writes, so a known address does not take noticeably longer.
    hashToken(newToken());
  }
  await auditAuth(ctx, client, {
    userId: user?.id ?? null,
    action: 'auth.forgotPassword',
    target: users.normalizeEmail(email),
    outcome: 'success',
    detail: { sent: send },
  });
}

/**
 * POST /auth/resetPassword: with a valid code, sets the new password, confirms the address (the code
 * came through it), lifts any lockout and ends every session. A bad code is InvalidToken, whether or
 * not the address is known; a valid code survives a password that breaks the rules.
 */
export async function resetPassword(ctx: Ctx, request: ResetPasswordRequest, client: ClientInfo): Promise<void> {
  const user = await users.findByEmail(ctx.db, request.email);
  const audit = (outcome: 'success' | 'failure', detail?: Record<string, unknown>) =>
    auditAuth(ctx, client, {
      userId: user?.id ?? null,
      action: 'auth.resetPassword',
      target: users.normalizeEmail(request.email),
      outcome,
      detail,
    });

  const token = user && !user.disabled ? await findCode(ctx, user, 'reset', request.resetCode, user.email) : undefined;
  if (!user || !token) {
    await audit('failure', { cause: 'InvalidToken' });
    throw identityProblem(['InvalidToken']);
  }
  const errors = passwordErrors(request.newPassword);
  if (errors.length > 0) {
    await audit('failure', { errors });
    throw identityProblem(errors);
  }
  if (!(await useCode(ctx, token))) {
    await audit('failure', { cause: 'InvalidToken' });
    throw identityProblem(['InvalidToken']);
  }

  await setPassword(ctx.db, user.id, request.newPassword);
  await users.markEmailConfirmed(ctx.db, user.id);
  await unlockEverywhere(ctx.db, user.id, ctx.clock());
  const sessionsEnded = await endAllSessions(ctx, user.id, 'Your password was reset.');
  await audit('success', { sessionsEnded });
}
