import { http, HttpResponse } from 'msw';
import type { Profile, TwoFactorRequest, TwoFactorResponse } from '../../../contracts/auth';
import { problem } from '../msw';
import { validationProblem } from './pages';

/** GET /auth/options; 'missing' is a server without the endpoint. */
export const registrationOptionsHandler = (open: boolean | 'missing') =>
  http.get('/auth/options', () => (open === 'missing' ? problem(404, 'Not Found') : HttpResponse.json({ registrationOpen: open })));

export const aProfile = (overrides: Partial<Profile> = {}): Profile => ({
  id: 'u-admin',
  email: 'ada@example.com',
  role: 'admin',
  emailConfirmed: true,
  twoFactorEnabled: false,
  createdAt: '2025-01-02T03:04:05.000Z',
  lastLoginAt: '2025-03-04T05:06:07.000Z',
  groups: [],
  ...overrides,
});

export const sharedKey = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const goodCode = '123456';
/** The account's password: turning two-factor off or renewing recovery codes needs it (or goodCode). */
export const currentPassword = 'Current-pass-1';
export const recoveryCodes = Array.from({ length: 10 }, (_, i) => `code-${i}-abcd`);

/**
 * The signed-in account as /auth/profile and /auth/manage/2fa see it: enrolment accepts
 * `goodCode`, new recovery codes are answered once, and every 2FA body is logged.
 */
export function accountServer(profile: Profile) {
  const state = { profile, codesLeft: profile.twoFactorEnabled ? 10 : 0, generation: 0 };
  const twoFactorBodies: TwoFactorRequest[] = [];
  const status = (codes?: string[]): TwoFactorResponse => ({
    sharedKey,
    recoveryCodesLeft: state.codesLeft,
    isTwoFactorEnabled: state.profile.twoFactorEnabled,
    isMachineRemembered: false,
    ...(codes && { recoveryCodes: codes }),
  });
  const newCodes = () => {
    state.generation += 1;
    state.codesLeft = 10;
    return recoveryCodes.map((code) => `${code}-${state.generation}`);
  };
  const handlers = [
    http.get('/auth/profile', () => HttpResponse.json(state.profile)),
    http.get('/auth/manage/info', () => HttpResponse.json({ email: state.profile.email, isEmailConfirmed: state.profile.emailConfirmed })),
    http.post('/auth/manage/2fa', async ({ request }) => {
      const body = (await request.json()) as TwoFactorRequest;
      twoFactorBodies.push(body);
      if (body.enable === true) {
        if (body.twoFactorCode !== goodCode) {
          return validationProblem({ twoFactorCode: ['The code is not valid. Enter the code your authenticator app shows now.'] });
        }
        state.profile = { ...state.profile, twoFactorEnabled: true };
        return HttpResponse.json(status(newCodes()));
      }
      // As the server: weakening two-factor needs the password or a current code, beside the field when wrong.
      if (body.enable === false || body.resetRecoveryCodes) {
        if (body.twoFactorCode !== undefined && body.twoFactorCode !== goodCode) {
          return validationProblem({ twoFactorCode: ['The code is not valid. Enter the code your authenticator app shows now.'] });
        }
        if (body.twoFactorCode === undefined && body.currentPassword !== currentPassword) {
          return validationProblem({ currentPassword: ['Your current password is not correct.'] });
        }
      }
      if (body.enable === false) {
        state.profile = { ...state.profile, twoFactorEnabled: false };
        state.codesLeft = 0;
        return HttpResponse.json(status());
      }
      if (body.resetRecoveryCodes) return HttpResponse.json(status(newCodes()));
      return HttpResponse.json(status());
    }),
  ];
  return { state, handlers, twoFactorBodies };
}
