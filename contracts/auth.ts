import { Type, type Static } from 'typebox';
import { roles } from './roles';

// Shapes of /auth, after ASP.NET Core Identity's MapIdentityApi (DESIGN §7).

export const LoginQuery = Type.Object(
  {
    useCookies: Type.Optional(Type.Boolean()),
    useSessionCookies: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type LoginQuery = Static<typeof LoginQuery>;

export const LoginRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    twoFactorCode: Type.Optional(Type.String({ maxLength: 16 })),
    twoFactorRecoveryCode: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type LoginRequest = Static<typeof LoginRequest>;

export const AccessTokenResponse = Type.Object({
  tokenType: Type.Literal('Bearer'),
  accessToken: Type.String(),
  expiresIn: Type.Integer(),
  refreshToken: Type.String(),
});
export type AccessTokenResponse = Static<typeof AccessTokenResponse>;

/**
 * The `detail` of a 401 answer to POST /auth/login. Warden never answers LockedOut: a locked
 * account answers Failed, as an unknown account and a wrong password do, so a guesser learns
 * nothing; the value stays for clients written against Identity.
 */
export const loginFailures = ['Failed', 'RequiresTwoFactor', 'LockedOut', 'NotAllowed'] as const;
export type LoginFailure = (typeof loginFailures)[number];

// Enum over the roles tuple keeps the literal types (a Union over roles.map(...) resolves to never).
export const Role = Type.Enum(roles);

export const CurrentUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  emailConfirmed: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
});
export type CurrentUser = Static<typeof CurrentUser>;

/** Failed sign-ins before the account locks, and for how long (DESIGN §7). */
export const lockout = { maxFailures: 5, minutes: 5 } as const;

// ---- The rest of /auth (identity issue): shapes as ASP.NET Core Identity's API endpoints ----

export const RegisterRequest = Type.Object(
  { email: Type.String({ maxLength: 256 }), password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);
export type RegisterRequest = Static<typeof RegisterRequest>;

export const RefreshRequest = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });
export type RefreshRequest = Static<typeof RefreshRequest>;

export const ConfirmEmailQuery = Type.Object(
  {
    userId: Type.String({ minLength: 1, maxLength: 64 }),
    code: Type.String({ minLength: 1, maxLength: 512 }),
    changedEmail: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);
export type ConfirmEmailQuery = Static<typeof ConfirmEmailQuery>;

export const EmailRequest = Type.Object({ email: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
export type EmailRequest = Static<typeof EmailRequest>;

export const ResetPasswordRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 256 }),
    resetCode: Type.String({ minLength: 1, maxLength: 512 }),
    newPassword: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type ResetPasswordRequest = Static<typeof ResetPasswordRequest>;

export const TwoFactorRequest = Type.Object(
  {
    enable: Type.Optional(Type.Boolean()),
    /** A code from the authenticator app: to enable, or (while on) to confirm it is you. */
    twoFactorCode: Type.Optional(Type.String({ maxLength: 16 })),
    /** Confirms it is you: needed (or a current code) to disable, reset the key or renew recovery codes. */
    currentPassword: Type.Optional(Type.String({ maxLength: 1024 })),
    resetSharedKey: Type.Optional(Type.Boolean()),
    resetRecoveryCodes: Type.Optional(Type.Boolean()),
    forgetMachine: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type TwoFactorRequest = Static<typeof TwoFactorRequest>;

export const TwoFactorResponse = Type.Object({
  sharedKey: Type.String(),
  recoveryCodesLeft: Type.Integer(),
  /** Only present right after new codes were made: they are never shown again. */
  recoveryCodes: Type.Optional(Type.Array(Type.String())),
  isTwoFactorEnabled: Type.Boolean(),
  isMachineRemembered: Type.Boolean(),
});
export type TwoFactorResponse = Static<typeof TwoFactorResponse>;

export const InfoResponse = Type.Object({ email: Type.String(), isEmailConfirmed: Type.Boolean() });
export type InfoResponse = Static<typeof InfoResponse>;

export const InfoRequest = Type.Object(
  {
    newEmail: Type.Optional(Type.String({ maxLength: 256 })),
    newPassword: Type.Optional(Type.String({ maxLength: 1024 })),
    oldPassword: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type InfoRequest = Static<typeof InfoRequest>;

export const GroupRef = Type.Object({ id: Type.String(), name: Type.String() });

export const Profile = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  emailConfirmed: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
  createdAt: Type.String(),
  lastLoginAt: Type.Union([Type.String(), Type.Null()]),
  groups: Type.Array(GroupRef),
});
export type Profile = Static<typeof Profile>;

export { passwordRules, type PasswordRuleCode } from './passwordRules';

/** GET /auth/options: whether the sign-in page offers "Create account". */
export const AuthOptions = Type.Object({ registrationOpen: Type.Boolean() });
export type AuthOptions = Static<typeof AuthOptions>;
