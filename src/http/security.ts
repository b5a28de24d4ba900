import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Headers every answer carries, whatever route or error produced it: no MIME sniffing (a JSON
 * body is never run as a script or page), and HSTS when the service is published over https.
 */
export function securityHeaders(o: { https: boolean }): RequestHandler {
  const headers = Object.entries(securityHeaderValues(o));
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The headers of securityHeaders, for an answer written past Express (src/lichess/commandPath.ts). */
export function securityHeaderValues(o: { https: boolean }): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    // 180 days, this host only: the operator may still serve other names over plain http.
    ...(o.https ? { 'Strict-Transport-Security': 'max-age=15552000' } : {}),
  };
}

/** Answers that hand out tokens (login, signup, refresh, …) must stay out of every cache. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Requested-With';
// What a browser app may read of an answer besides the simple headers.
const EXPOSED_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed, Location, WWW-Authenticate';
const PREFLIGHT_MAX_AGE = '7200'; // Chromium caps the preflight cache at two hours

/**
 * CORS (DESIGN 2.1): the API is for browser apps on any origin, or on the origins listed in
 * CORS_ORIGINS. Tokens travel in `Authorization`, never in cookies, so the API answers
 * `Access-Control-Allow-Origin: *` without credentials. `/matchmake` is the exception: the
 * Colyseus SDK always fetches it with `credentials: 'include'`, which browsers refuse against `*`,
 * so there the allowed origin is echoed with `Access-Control-Allow-Credentials: true`; the service
 * sets no cookie, so a credentialed request carries nothing of ours.
 */
export function cors(o: { origins: '*' | string[] }): RequestHandler {
  const listed = o.origins === '*' ? undefined : new Set(o.origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    const credentialed = req.path.startsWith('/matchmake/');
    if (listed || credentialed) res.vary('Origin');
    const allowed = origin !== undefined && (!listed || listed.has(origin));
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', listed || credentialed ? origin : '*');
      if (credentialed) res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS' || !req.get('access-control-request-method')) return next();
    // A preflight: answered here, before any route (an OPTIONS route would otherwise be a 404).
    if (allowed) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
    }
    res.status(204).end();
  };
}

/** A CSP source for one inline `<style>` or `<script>` body. */
export const sourceHash = (source: string) => `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;

/**
 * The policy of every HTML page the service serves: nothing from anywhere but the page's own
 * inline style and script (by hash, never 'unsafe-inline'), no framing, no plugins, no base.
 */
export function pagePolicy(o: { styles: string[]; scripts?: string[]; connect?: boolean }): string {
  return [
    "default-src 'none'",
    `style-src ${o.styles.map(sourceHash).join(' ')}`,
    ...(o.scripts?.length ? [`script-src ${o.scripts.map(sourceHash).join(' ')}`] : []),
    ...(o.connect ? ["connect-src 'self'"] : []),
    "img-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of the web app and the API reference: script and style from this origin's files
 * only (never inline, never eval), connections to this origin (and `connect`, e.g. its ws: name),
 * images from here or data: URIs (the reference's icons), no framing, no plugins, no base.
 */
export function filePagePolicy(o: { connect?: string[] } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...(o.connect ?? [])].join(' '),
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
