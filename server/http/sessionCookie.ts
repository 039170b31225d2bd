import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { usesHttps, type Config } from '../config';

export const sessionCookieName = 'warden_session';

function cookieOptions(config: Pick<Config, 'publicUrl'>): CookieSerializeOptions {
  // Lax keeps the cookie off cross-site subrequests and form posts; scripts can never read it.
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: usesHttps(config) };
}

/** Without maxAgeSeconds the cookie is a session cookie that the browser drops when it closes. */
export function setSessionCookie(
  reply: FastifyReply,
  config: Pick<Config, 'publicUrl'>,
  token: string,
  maxAgeSeconds?: number,
): void {
  reply.setCookie(sessionCookieName, token, { ...cookieOptions(config), maxAge: maxAgeSeconds });
}

export function clearSessionCookie(reply: FastifyReply, config: Pick<Config, 'publicUrl'>): void {
  reply.clearCookie(sessionCookieName, cookieOptions(config));
}
