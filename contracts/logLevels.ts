// Log levels of SPEC §3, lowest first. TypeBox-free, so the browser may import the values.
export const logLevels = ['verbose', 'debug', 'information', 'warning', 'error', 'fatal'] as const;
export type LogLevel = (typeof logLevels)[number];
