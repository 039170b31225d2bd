import type { InfoRequest, InfoResponse } from '../../contracts/auth';
import type { AppContext } from '../context';
import { setPassword } from '../db/adminUsers';
import * as users from '../db/users';
import { HttpProblem } from '../http/problems';
import type { Mailer } from '../mail/mailer';
import { auditAuth } from './authAudit';
import { sendConfirmation } from './emailConfirmation';
import { isValidEmail } from './emailRules';
import { identityProblem, type IdentityErrorCode } from './identityErrors';
import { verifyPassword } from './passwords';
import { passwordErrors } from './passwordRules';
import { endOtherSessions, type ClientInfo, type Principal } from './sessions';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config' | 'hub'> & { mailer: Mailer };

export async function accountInfo(ctx: Pick<AppContext, 'db'>, userId: string): Promise<InfoResponse> {
  const user = await users.findById(ctx.db, userId);
  if (!user) throw new HttpProblem(401, 'Sign in first.');
  return { email: user.email, isEmailConfirmed: user.emailConfirmed };
}

/**
 * POST /auth/manage/info. A new password needs the current one and the rules; it ends the user's
 * other sessions (this one stays signed in). A new address is only mailed a confirmation link: the
 * change happens when that link is used. Everything is checked before anything changes.
 */
export async function updateAccountInfo(
  ctx: Ctx,
  principal: Principal,
  request: InfoRequest,
  client: ClientInfo,
): Promise<InfoResponse> {
  const user = await users.findById(ctx.db, principal.userId);
  if (!user) throw new HttpProblem(401, 'Sign in first.');
  // Empty strings mean "no change", as in Identity.
  const newEmail = request.newEmail ? users.normalizeEmail(request.newEmail) : undefined;
  const changeEmail = newEmail !== undefined && newEmail !== user.email;
  const newPassword = request.newPassword || undefined;

  const errors: IdentityErrorCode[] = [];
  if (changeEmail) {
    if (!isValidEmail(newEmail)) errors.push('InvalidEmail');
    else if (await users.findByEmail(ctx.db, newEmail)) errors.push('DuplicateEmail');
  }
  if (newPassword) {
    if (!request.oldPassword) errors.push('OldPasswordRequired');
    else if (!(await verifyPassword(request.oldPassword, user.passwordHash))) errors.push('PasswordMismatch');
    else errors.push(...passwordErrors(newPassword));
  }
  const audit = (outcome: 'success' | 'failure', detail: Record<string, unknown>) =>
    auditAuth(ctx, client, { userId: user.id, action: 'auth.manage.info', target: user.id, outcome, detail });
  if (errors.length > 0) {
    await audit('failure', { errors });
    throw identityProblem(errors, request.newEmail);
  }

  let sessionsEnded = 0;
  if (newPassword) {
    await setPassword(ctx.db, user.id, newPassword);
    sessionsEnded = await endOtherSessions(ctx, principal, 'Your password was changed.');
  }
  // After the password change, so the code is issued under the new security stamp.
  if (changeEmail) await sendConfirmation(ctx, user, newEmail);
  if (newPassword || changeEmail) {
    await audit('success', { passwordChanged: !!newPassword, sessionsEnded, ...(changeEmail && { emailChangeRequested: newEmail }) });
  }
  return accountInfo(ctx, user.id);
}
