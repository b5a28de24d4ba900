// The web app (src/web, a single-page app) and the API reference at /docs: an HTML shell per page
// that loads the bundle's hashed script and stylesheet, and the bundle's files under /assets.
// The app speaks only the public API (REST, the room protocol, the realtime channel), so these
// routes read nothing: no database, no rate limit.

import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.ts';
import { parseId } from '../domain/ids.ts';
import { escapeHtml } from '../util/html.ts';
import { filePagePolicy } from './security.ts';
import type { Entry, WebBundle } from './webBundle.ts';

/**
 * The app's own addresses (src/web/routes.ts has the same table): each answers the shell, and the
 * app's router draws the page. A page of an area that lands later adds its path here and there.
 */
export const APP_PATHS = [
  '/', '/watch', '/login', '/signup', '/games', '/play/:id', '/analysis/:id', '/friends', '/clubs', '/clubs/:id',
  '/puzzles', '/puzzles/:id', '/tournaments', '/tournaments/:id', '/@/:username', '/settings', '/settings/tokens', '/forgot-password',
  '/confirm-email',
] as const;

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Paths that are never a page: the API, the assets and the operations endpoints keep their JSON 404. */
const NOT_PAGES = /^\/(v1|api|assets|healthz|readyz|metrics|matchmake|realtime)(\/|$)/;

export function webRouter(o: { bundle: () => Promise<WebBundle>; publicUrl: string }): { router: express.Router; notFoundPage: RequestHandler } {
  const router = express.Router();
  // A socket to this origin under PUBLIC_URL's name, for browsers whose 'self' does not cover ws: (CSP2).
  const policy = filePagePolicy({ connect: [new URL(o.publicUrl).origin.replace(/^http/, 'ws')] });

  router.get('/assets/:name', async (req, res) => {
    const asset = (await o.bundle()).assets.get(req.params.name);
    if (!asset) throw new AppError('NOT_FOUND', `No asset ${req.params.name}`);
    const gzip = asset.gzip && req.acceptsEncodings('gzip') === 'gzip';
    res.set({ 'Content-Type': asset.type, 'Cache-Control': IMMUTABLE, Vary: 'Accept-Encoding', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
    res.send(gzip ? asset.gzip : asset.body);
  });

  for (const path of APP_PATHS) {
    router.get(path, async (req, res) => {
      const { app } = await o.bundle();
      // A malformed game id is no game: the app says so, under a 404.
      const id = (req.params as Record<string, string>).id;
      const status = path.startsWith('/play/') && !parseId(id) ? 404 : 200;
      sendShell(res, status, policy, app, 'Chess', APP_BODY);
    });
  }

  router.get('/docs', async (_req: Request, res: Response) => {
    const { docs } = await o.bundle();
    sendShell(res, 200, policy, docs, 'Chess service API', DOCS_BODY);
  });

  /**
   * An unknown address asked for by a browser (it prefers HTML) gets the app under a 404, whose
   * router shows its "nothing here" page with the navigation; API clients get the JSON envelope.
   */
  const notFoundPage: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_PAGES.test(req.path)) return next();
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') return next();
    o.bundle().then(({ app }) => sendShell(res, 404, policy, app, 'Chess', APP_BODY), next);
  };
  return { router, notFoundPage };
}

// A knight, drawn inline (the policy allows data: images): no request for /favicon.ico.
const FAVICON = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 100'><text y='.9em' font-size='90'>♞</text></svg>")}`;

const APP_BODY = `<div id="app"></div>
<noscript><p>This app needs JavaScript. The service is an API as well: see <a href="/docs">/docs</a>.</p></noscript>`;

const DOCS_BODY = `<header class="docs-bar"><a href="/">← Play chess</a><span>Chess service API</span><a href="/v1/openapi.json">openapi.json</a></header>
<div id="swagger-ui"></div>
<noscript><p>The reference needs JavaScript; the document itself is <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p></noscript>`;

/**
 * An HTML page that runs nothing inline: one script and one stylesheet from /assets, as the
 * policy allows. The shell names hashed files, so it is revalidated on every visit (no-cache).
 */
function sendShell(res: Response, status: number, policy: string, entry: Entry, title: string, body: string): void {
  const css = entry.css ? `<link rel="stylesheet" href="${escapeHtml(entry.css)}">` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="icon" href="${FAVICON}">${css}<script type="module" src="${escapeHtml(entry.js)}"></script></head>
<body>${body}</body></html>
`;
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-cache',
      'Referrer-Policy': 'same-origin',
    })
    .send(html);
}
