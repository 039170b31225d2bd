/** The one source of "now": injected so tests can move time (lockouts, token expiry, TOTP steps). */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
