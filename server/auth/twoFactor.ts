import type { TwoFactorRequest, TwoFactorResponse } from '../../contracts/auth';
import type { AppContext } from '../context';
import * as users from '../db/users';
import { HttpProblem, validationProblem } from '../http/problems';
import { auditAuth } from './authAudit';
import { newRecoveryCodes, recoveryCodesLeft } from './recoveryCodes';
import type { ClientInfo } from './sessions';
import { newTotpSecret, verifyTotp } from './totp';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

/**
 * POST /auth/manage/2fa, step for step as Identity's endpoint: enable (with a code from the shared
 * key) or disable, reset the key (which disables), renew recovery codes, and answer the state, making
 * a shared key the first time. Warden keeps no remembered-machine cookie, so isMachineRemembered is
 * always false and forgetMachine has nothing to forget.
 */
export async function manageTwoFactor(
  ctx: Ctx,
  userId: string,
  request: TwoFactorRequest,
  client: ClientInfo,
): Promise<TwoFactorResponse> {
  const user = await users.findById(ctx.db, userId);
  if (!user) throw new HttpProblem(401, 'Sign in first.');
  const audit = (outcome: 'success' | 'failure', detail: Record<string, unknown>) =>
    auditAuth(ctx, client, { userId, action: 'auth.manage.2fa', target: userId, outcome, detail });

  let enabled = user.twoFactorEnabled;
  let secret = user.twoFactorSecret;
  const changes: string[] = [];

  if (request.enable === true) {
    if (request.resetSharedKey) {
      throw validationProblem({
        resetSharedKey: ['Resetting the shared key turns two-factor sign-in off until a code from the new key is checked; do not combine it with enable.'],
      });
    }
    if (!request.twoFactorCode) {
      throw validationProblem({ twoFactorCode: ['Enter the 6-digit code from your authenticator app to turn on two-factor sign-in.'] });
    }
    if (!secret || !verifyTotp(secret, request.twoFactorCode, ctx.clock())) {
      await audit('failure', { cause: 'WrongTwoFactorCode' });
      throw validationProblem({ twoFactorCode: ['The code is not valid. Enter the code your authenticator app shows now.'] });
    }
    if (!enabled) changes.push('enabled');
    enabled = true;
  } else if (request.enable === false || request.resetSharedKey) {
    if (enabled) changes.push('disabled');
    enabled = false;
  }
  if (request.resetSharedKey || !secret) {
    changes.push(secret ? 'sharedKeyReset' : 'sharedKeyCreated');
    secret = newTotpSecret();
  }
  if (changes.length > 0) await users.setTwoFactor(ctx.db, userId, { enabled, secret });

  let recoveryCodes: string[] | undefined;
  if (request.resetRecoveryCodes || (request.enable === true && (await recoveryCodesLeft(ctx, userId)) === 0)) {
    recoveryCodes = await newRecoveryCodes(ctx, userId);
    changes.push('recoveryCodesCreated');
  }
  if (changes.length > 0) await audit('success', { changes });

  return {
    sharedKey: secret,
    recoveryCodesLeft: recoveryCodes?.length ?? (await recoveryCodesLeft(ctx, userId)),
    ...(recoveryCodes && { recoveryCodes }),
    isTwoFactorEnabled: enabled,
    isMachineRemembered: false,
  };
}
