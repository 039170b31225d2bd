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

/** The `detail` of a 401 answer to POST /auth/login. */
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
