import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import { usesHttps, type Config } from '../config';

/** Security headers on every answer (helmet) with a CSP the SPA can live with. */
export const securityHeaders = fp<{ config: Config }>(async (app, { config }) => {
  const https = usesHttps(config);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Chakra (emotion) injects <style> elements at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        // ws:/wss: for the /uihub SignalR connection.
        connectSrc: ["'self'", 'ws:', 'wss:'],
        // Over plain http (the default on 127.0.0.1) upgrading would break every request.
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    // HSTS only means something once users reach Warden over https.
    strictTransportSecurity: https,
  });
});
