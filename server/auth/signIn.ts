import type { LoginFailure, LoginRequest } from '../../contracts/auth';
import type { AppContext } from '../context';
import { recordAudit } from '../db/audit';
import { deleteExpiredSessions } from '../db/sessions';
import * as users from '../db/users';
import { countFailure, forgetFailures, isLockedOut } from './lockout';
import { passwordHashForTiming, verifyPassword } from './passwords';
import { redeemRecoveryCode } from './recoveryCodes';
import { endSession, type ClientInfo, type Principal } from './sessions';
import { acceptTotpCode } from './twoFactor';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export type SignInResult = { ok: true; user: users.User } | { ok: false; failure: LoginFailure };

/**
 * Checks credentials the way ASP.NET Identity's sign-in manager does: lockout first, then the
 * password (a wrong one counts towards lockout), then whether the user may sign in, then the second
 * factor (a wrong or replayed code also counts). Every outcome but RequiresTwoFactor is audited.
 * An unknown account, a wrong password and a locked account all answer Failed, so a caller learns
 * nothing about which it hit (the audit keeps the cause). Lockout is per account and client address.
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
  const fail = async (failure: LoginFailure, cause: string, lockedNow = false): Promise<SignInResult> => {
    await audit('failure', { failure, cause, ...(lockedNow && { lockedOut: true }) });
    return { ok: false, failure };
  };

  if (!user) {
    // Same work as a wrong password, so response time does not reveal which e-mails exist.
    await verifyPassword(credentials.password, await passwordHashForTiming());
    return fail('Failed', 'UnknownEmail');
  }
  if (await isLockedOut(ctx.db, user.id, client, now)) {
    // The password is still hashed, so a locked account answers as slowly as a wrong password.
    await verifyPassword(credentials.password, user.passwordHash);
    return fail('Failed', 'LockedOut');
  }

  if (!(await verifyPassword(credentials.password, user.passwordHash))) {
    const locked = await countFailure(ctx.db, user.id, client, now);
    return fail('Failed', 'WrongPassword', locked);
  }
  // Checked only after the password, so a disabled account is not revealed to someone guessing.
  if (user.disabled) return fail('NotAllowed', 'Disabled');

  let secondFactor: 'authenticator' | 'recoveryCode' | undefined;
  if (user.twoFactorEnabled) {
    const { twoFactorCode: code, twoFactorRecoveryCode: recoveryCode } = credentials;
    if (!code && !recoveryCode) return { ok: false, failure: 'RequiresTwoFactor' };
    // As in Identity, an authenticator code wins when both are given. A recovery code is used up here.
    secondFactor = code ? 'authenticator' : 'recoveryCode';
    const check = code
      ? await acceptTotpCode(ctx, user, code)
      : (await redeemRecoveryCode(ctx, user.id, recoveryCode ?? ''))
        ? 'ok'
        : 'wrong';
    if (check !== 'ok') {
      const locked = await countFailure(ctx.db, user.id, client, now);
      const cause = !code ? 'WrongRecoveryCode' : check === 'replayed' ? 'ReplayedTwoFactorCode' : 'WrongTwoFactorCode';
      return fail('Failed', cause, locked);
    }
  }

  await users.recordSuccess(ctx.db, user.id, now);
  await forgetFailures(ctx.db, user.id, client);
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
