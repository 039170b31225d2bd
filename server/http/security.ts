import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import { usesHttps, type Config } from '../config';

/**
 * The CSP sources of the built pages' inline scripts (the theme boot, src/theme/themeBoot.js, which
 * must run before the first paint): their SHA-256, read from the pages the server serves, so the CSP
 * lets exactly those run and no other inline script.
 */
export function inlineScriptSources(staticDir: string): string[] {
  const sources = new Set<string>();
  for (const page of ['index.html', 'login.html']) {
    let html: string;
    try {
      html = fs.readFileSync(path.join(staticDir, page), 'utf8');
    } catch {
      continue;
    }
    for (const [, body] of html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
      if (body.trim() !== '') sources.add(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    }
  }
  return [...sources];
}

/** Security headers on every answer (helmet) with a CSP the SPA can live with. */
export const securityHeaders = fp<{ config: Config }>(async (app, { config }) => {
  const https = usesHttps(config);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptSources(config.staticDir)],
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
