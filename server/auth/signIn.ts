import type { LoginFailure, LoginRequest } from '../../contracts/auth';
import type { AppContext } from '../context';
import { recordAudit } from '../db/audit';
import { deleteExpiredSessions } from '../db/sessions';
import * as users from '../db/users';
import { countFailure, isLockedOut } from './lockout';
import { passwordHashForTiming, verifyPassword } from './passwords';
import { redeemRecoveryCode } from './recoveryCodes';
import { endSession, type ClientInfo, type Principal } from './sessions';
import { verifyTotp } from './totp';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export type SignInResult = { ok: true; user: users.User } | { ok: false; failure: LoginFailure };

/**
 * Checks credentials the way ASP.NET Identity's sign-in manager does: lockout first, then the
 * password (a wrong one counts towards lockout), then whether the user may sign in, then the second
 * factor (a wrong code also counts). Every outcome but RequiresTwoFactor is audited.
 */
export async function signIn(ctx: Ctx, credentials: LoginRequest, client: ClientInfo): Promise<SignInResult> {
  const now = ctx.clock();
  const user = await users.findByEmail(ctx.db, credentials.email);
  const audit = (outcome: 'success' | 'failure', detail?: Record<string, unknown>) =>
    recordAudit(ctx.db, {
      at: now,
      userId: user?.id ?? null,
      action: 'auth.login',
      target: users.normalizeEmail(credentials.email),
      outcome,
      detail,
      ip: client.ip,
    });
  const fail = async (failure: LoginFailure, cause: string): Promise<SignInResult> => {
    await audit('failure', { failure, cause });
    return { ok: false, failure };
  };

  if (!user) {
    // Same work as a wrong password, so response time does not reveal which e-mails exist.
    await verifyPassword(credentials.password, await passwordHashForTiming());
    return fail('Failed', 'UnknownEmail');
  }
  if (isLockedOut(user, now)) return fail('LockedOut', 'LockedOut');

  if (!(await verifyPassword(credentials.password, user.passwordHash))) {
    const locked = await countFailure(ctx.db, user.id, now);
    return fail(locked ? 'LockedOut' : 'Failed', 'WrongPassword');
  }
  // Checked only after the password, so a disabled account is not revealed to someone guessing.
  if (user.disabled) return fail('NotAllowed', 'Disabled');

  let secondFactor: 'authenticator' | 'recoveryCode' | undefined;
  if (user.twoFactorEnabled) {
    const { twoFactorCode: code, twoFactorRecoveryCode: recoveryCode } = credentials;
    if (!code && !recoveryCode) return { ok: false, failure: 'RequiresTwoFactor' };
    // As in Identity, an authenticator code wins when both are given. A recovery code is used up here.
    secondFactor = code ? 'authenticator' : 'recoveryCode';
    const valid = code
      ? !!user.twoFactorSecret && verifyTotp(user.twoFactorSecret, code, now)
      : await redeemRecoveryCode(ctx, user.id, recoveryCode ?? '');
    if (!valid) {
      const locked = await countFailure(ctx.db, user.id, now);
      return fail(locked ? 'LockedOut' : 'Failed', code ? 'WrongTwoFactorCode' : 'WrongRecoveryCode');
    }
  }

  await users.recordSuccess(ctx.db, user.id, now);
  await deleteExpiredSessions(ctx.db, user.id, now);
  await audit('success', secondFactor && { secondFactor });
  return { ok: true, user };
}

/** Ends the caller's current session (other sessions of the same user stay). */
export async function signOut(ctx: Ctx & Pick<AppContext, 'hub'>, principal: Principal, client: ClientInfo): Promise<void> {
  await endSession(ctx, principal.sessionId, 'You signed out.');
  await recordAudit(ctx.db, {
    at: ctx.clock(),
    userId: principal.userId,
    action: 'auth.logout',
    target: principal.userId,
    outcome: 'success',
    detail: { via: principal.via },
    ip: client.ip,
  });
}
