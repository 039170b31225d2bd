import { identityDefaults, loadConfig } from '../../server/config';
import { setup } from './helpers';

describe('identity settings in loadConfig', () => {
  it('defaults to closed registration, no SMTP and the documented rate limits', () => {
    expect(loadConfig({})).toMatchObject({
      allowRegistration: false,
      smtpUrl: undefined,
      mailFrom: undefined,
      authRateLimit: 20,
      accountRateLimit: 10,
    });
    expect(identityDefaults).toEqual({ allowRegistration: false, authRateLimit: 20, accountRateLimit: 10 });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      WARDEN_ALLOW_REGISTRATION: 'true',
      WARDEN_SMTP_URL: 'smtps://warden:s3cret@mail.example.com:465',
      WARDEN_MAIL_FROM: 'Warden <ops@example.com>',
      WARDEN_AUTH_RATE_LIMIT: '5',
      WARDEN_ACCOUNT_RATE_LIMIT: '3',
    });

    expect(config).toMatchObject({
      allowRegistration: true,
      smtpUrl: 'smtps://warden:s3cret@mail.example.com:465',
      mailFrom: 'Warden <ops@example.com>',
      authRateLimit: 5,
      accountRateLimit: 3,
    });
    expect(loadConfig({ WARDEN_ALLOW_REGISTRATION: 'false' }).allowRegistration).toBe(false);
  });

  it('names the variable of a bad value, never repeating an SMTP password', () => {
    expect(() => loadConfig({ WARDEN_ALLOW_REGISTRATION: 'maybe' })).toThrow("WARDEN_ALLOW_REGISTRATION must be true or false, got 'maybe'");
    expect(() => loadConfig({ WARDEN_AUTH_RATE_LIMIT: '0' })).toThrow('WARDEN_AUTH_RATE_LIMIT');
    expect(() => loadConfig({ WARDEN_ACCOUNT_RATE_LIMIT: 'many' })).toThrow('WARDEN_ACCOUNT_RATE_LIMIT');
    let message = '';
    try {
      loadConfig({ WARDEN_SMTP_URL: 'http://user:hunter2@mail.example.com' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^WARDEN_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(message).not.toContain('hunter2');
  });
});

describe('the OpenAPI document', () => {
  it('describes every /auth call with its schemas', async () => {
    const h = await setup();
    try {
      const doc = (await h.app.inject({ url: '/api/openapi.json' })).json();
      const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/auth/') || p === '/admin/outbox');

      expect(paths.sort()).toEqual(
        [
          '/admin/outbox',
          '/auth/check',
          '/auth/confirmEmail',
          '/auth/forgotPassword',
          '/auth/login',
          '/auth/logout',
          '/auth/manage/2fa',
          '/auth/manage/info',
          '/auth/me',
          '/auth/options',
          '/auth/profile',
          '/auth/refresh',
          '/auth/register',
          '/auth/resendConfirmationEmail',
          '/auth/resetPassword',
        ].sort(),
      );
      expect(Object.keys(doc.paths['/auth/confirmEmail'].get.responses['200'].content)).toEqual(['text/plain', 'application/json']);
      expect(doc.paths['/auth/manage/2fa'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('twoFactorCode');
    } finally {
      await h.close();
    }
  });
});

describe('GET /auth/options', () => {
  it('tells the sign-in page whether registration is open, to anyone', async () => {
    const closed = await setup();
    const open = await setup({ config: { allowRegistration: true } });
    try {
      expect((await closed.app.inject({ url: '/auth/options' })).json()).toEqual({ registrationOpen: false });
      expect((await open.app.inject({ url: '/auth/options' })).json()).toEqual({ registrationOpen: true });
    } finally {
      await closed.close();
      await open.close();
    }
  });
});
