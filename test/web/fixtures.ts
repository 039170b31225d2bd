import type { CurrentUser } from '../../contracts/auth';

export const admin: CurrentUser = {
  id: 'u-admin',
  email: 'ada@example.com',
  role: 'admin',
  emailConfirmed: true,
  twoFactorEnabled: false,
};

export const regular: CurrentUser = {
  id: 'u-regular',
  email: 'rob@example.com',
  role: 'regular',
  emailConfirmed: true,
  twoFactorEnabled: false,
};
