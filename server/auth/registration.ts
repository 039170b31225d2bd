import type { RegisterRequest } from '../../contracts/auth';
import { identityDefaults } from '../config';
import type { AppContext } from '../context';
import * as users from '../db/users';
import { HttpProblem } from '../http/problems';
import type { Mailer } from '../mail/mailer';
import { auditAuth } from './authAudit';
import { sendConfirmation } from './emailConfirmation';
import { isValidEmail } from './emailRules';
import { identityProblem, type IdentityErrorCode } from './identityErrors';
import { passwordErrors } from './passwordRules';
import type { ClientInfo } from './sessions';

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'> & { mailer: Mailer };

/**
 * POST /auth/register, open only when WARDEN_ALLOW_REGISTRATION is set: a regular user with an
 * unconfirmed address, who is mailed a confirmation link. Like Identity, it reports every problem
 * with the address and the password at once, and DuplicateEmail once both are fine.
 */
export async function register(ctx: Ctx, request: RegisterRequest, client: ClientInfo): Promise<void> {
  const email = users.normalizeEmail(request.email);
  const audit = (outcome: 'success' | 'failure', userId: string | null, detail?: Record<string, unknown>) =>
    auditAuth(ctx, client, { userId, action: 'auth.register', target: email, outcome, detail });

  if (!(ctx.config.allowRegistration ?? identityDefaults.allowRegistration)) {
    await audit('failure', null, { cause: 'RegistrationClosed' });
    throw new HttpProblem(403, 'Registration is closed: ask an admin for an account.');
  }
  const errors: IdentityErrorCode[] = passwordErrors(request.password);
  if (!isValidEmail(email)) errors.unshift('InvalidEmail');
  if (errors.length === 0) {
    const user = await users
      .createUser(ctx.db, { email, password: request.password, role: 'regular' }, ctx.clock())
      .catch((error: unknown) => {
        if (error instanceof users.DuplicateEmailError) return undefined;
        throw error;
      });
    if (user) {
      await sendConfirmation(ctx, user);
      await audit('success', user.id);
      return;
    }
    errors.push('DuplicateEmail');
  }
  await audit('failure', null, { errors });
  throw identityProblem(errors, request.email);
}
