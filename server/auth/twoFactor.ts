import type { TwoFactorRequest, TwoFactorResponse } from '../../contracts/auth';
import type { AppContext } from '../context';
import * as users from '../db/users';
import { HttpProblem, validationProblem } from '../http/problems';
import { auditAuth } from './authAudit';
import { countFailure, isLockedOut } from './lockout';
import { verifyPassword } from './passwords';
import { newRecoveryCodes, recoveryCodesLeft } from './recoveryCodes';
import type { ClientInfo } from './sessions';
import { matchTotpStep, newTotpSecret } from './totp';

type Ctx = Pick<AppContext, 'db' | 'clock'>;

export type CodeCheck = 'ok' | 'wrong' | 'replayed';

/**
 * Checks an authenticator code and uses it up: a code is accepted once, and only for a step later
 * than the last accepted one, so a code seen over someone's shoulder cannot be replayed in its window.
 */
export async function acceptTotpCode(ctx: Ctx, user: users.User, code: string): Promise<CodeCheck> {
  const step = user.twoFactorSecret ? matchTotpStep(user.twoFactorSecret, code, ctx.clock()) : null;
  if (step === null) return 'wrong';
  return (await users.useTwoFactorStep(ctx.db, user.id, step)) ? 'ok' : 'replayed';
}

const replayedCodeText = 'This code was already used. Wait for the next code your authenticator app shows.';
const wrongCodeText = 'The code is not valid. Enter the code your authenticator app shows now.';

/**
 * Turning two-factor off, a new shared key and new recovery codes weaken or replace the second factor,
 * so a session alone is not enough (a stolen cookie or token must not do it): the body must carry the
 * current password, or a current authenticator code while two-factor is on. Refusals are 400, not 401:
 * a 401 would tell the console the session ended. Wrong answers count towards the client's lockout.
 * Answers whether the authenticator code was used up for it.
 */
async function reauthenticate(
  ctx: Ctx,
  user: users.User,
  request: TwoFactorRequest,
  client: ClientInfo,
  audit: (outcome: 'failure', detail: Record<string, unknown>) => Promise<void>,
): Promise<boolean> {
  const useCode = !request.currentPassword && !!request.twoFactorCode && user.twoFactorEnabled;
  if (!request.currentPassword && !useCode) {
    await audit('failure', { cause: 'ReauthenticationRequired' });
    throw new HttpProblem(
      400,
      user.twoFactorEnabled
        ? 'Confirm it is you: enter your current password or a code from your authenticator app.'
        : 'Confirm it is you: enter your current password.',
      { errors: { currentPassword: ['Enter your current password to change two-factor sign-in.'] } },
    );
  }
  const field = useCode ? 'twoFactorCode' : 'currentPassword';
  const now = ctx.clock();
  if (await isLockedOut(ctx.db, user.id, client, now)) {
    await audit('failure', { cause: 'LockedOut' });
    throw new HttpProblem(400, 'Too many wrong attempts. Try again in a few minutes.', {
      errors: { [field]: ['Too many wrong attempts. Try again in a few minutes.'] },
    });
  }
  const check: CodeCheck = useCode
    ? await acceptTotpCode(ctx, user, request.twoFactorCode ?? '')
    : (await verifyPassword(request.currentPassword ?? '', user.passwordHash))
      ? 'ok'
      : 'wrong';
  if (check !== 'ok') {
    const lockedNow = await countFailure(ctx.db, user.id, client, now);
    const cause = useCode ? (check === 'replayed' ? 'ReplayedTwoFactorCode' : 'WrongTwoFactorCode') : 'PasswordMismatch';
    await audit('failure', { cause, ...(lockedNow && { lockedOut: true }) });
    const text = useCode
      ? check === 'replayed'
        ? replayedCodeText
        : wrongCodeText
      : 'Your current password is not correct.';
    throw new HttpProblem(400, text, { errors: { [field]: [text] } });
  }
  return useCode;
}

/**
 * POST /auth/manage/2fa, step for step as Identity's endpoint: enable (with a code from the shared
 * key) or disable, reset the key (which disables), renew recovery codes, and answer the state, making
 * a shared key the first time. Disabling, resetting the key and renewing codes need the current
 * password or code (reauthenticate). Warden keeps no remembered-machine cookie, so
 * isMachineRemembered is always false and forgetMachine has nothing to forget.
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

  if (request.enable === true && request.resetSharedKey) {
    throw validationProblem({
      resetSharedKey: ['Resetting the shared key turns two-factor sign-in off until a code from the new key is checked; do not combine it with enable.'],
    });
  }
  const weakens = request.resetSharedKey || request.resetRecoveryCodes || (request.enable === false && enabled);
  const codeUsed = weakens ? await reauthenticate(ctx, user, request, client, audit) : false;

  if (request.enable === true) {
    if (!request.twoFactorCode) {
      throw validationProblem({ twoFactorCode: ['Enter the 6-digit code from your authenticator app to turn on two-factor sign-in.'] });
    }
    // A code already used up to confirm it is you is not checked (and refused as a replay) again.
    const check = codeUsed ? 'ok' : await acceptTotpCode(ctx, user, request.twoFactorCode);
    if (check !== 'ok') {
      await audit('failure', { cause: check === 'replayed' ? 'ReplayedTwoFactorCode' : 'WrongTwoFactorCode' });
      throw validationProblem({
        twoFactorCode: [check === 'replayed' ? replayedCodeText : wrongCodeText],
      });
    }
    if (!enabled) changes.push('enabled');
    enabled = true;
  } else if (request.enable === false || request.resetSharedKey) {
    if (enabled) changes.push('disabled');
    enabled = false;
  }
  const keyChanged = !!request.resetSharedKey || !secret;
  if (request.resetSharedKey || !secret) {
    changes.push(secret ? 'sharedKeyReset' : 'sharedKeyCreated');
    secret = newTotpSecret();
  }
  if (changes.length > 0) await users.setTwoFactor(ctx.db, userId, { enabled, secret, keyChanged });

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
