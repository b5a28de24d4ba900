// Lichess's game commands past Express. A bot or board app moves with a POST without a body
// (`/api/board/game/{id}/move/{uci}`), the request it sends most; Express's app and router cost it
// more than the move itself (routing ~75 µs, the request's and answer's prototypes, a layer per
// middleware: loadtest/lichessMoves.ts measured a Board API move at 1.9× the CPU of a room's).
// Such a POST is matched here against the `bare` routes and served by the same steps as on the
// router (admit → the handler → a JSON answer, src/lichess/route.ts), with the side app's headers
// and its metrics; anything else (a body, a browser's Origin, no token, a path not matched) goes
// on to Express unchanged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { bearerToken } from '../auth/tokens.ts';
import { hasNoBody } from '../http/body.ts';
import type { Logger } from '../logger.ts';
import { lichessError } from './errors.ts';
import { admit, OK, routePattern, writeJson, type LichessDeps, type LichessRoute } from './route.ts';

export type CommandPathDeps = LichessDeps & {
  now: () => number;
  log: Logger;
  /** The headers every answer of the side app carries (src/http/security.ts). */
  headers: Record<string, string>;
  /** Times a request by its route; the result is called with the answer's status. */
  timeRoute?: (method: string, route: string) => (status: number) => void;
};

type BareRoute = Extract<LichessRoute, { bare: true }>;
type Served = { route: BareRoute; label: string; pattern: RegExp; names: string[] };

/** A command this path serves: a bare POST without a body, for a caller with a token. */
const servedHere = (r: LichessRoute): r is BareRoute => r.bare === true && r.method === 'post' && !r.body && !r.textBody && typeof r.auth === 'object';

/**
 * A listener's first look at every request: true when it served it (a bare route's POST), false
 * when Express should. Routes are matched as Express matches them: in any case, with or without a
 * trailing slash, a parameter being one percent-decoded path segment, under each of `prefixes`.
 */
export function lichessCommandPath(routes: LichessRoute[], prefixes: string[], d: CommandPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const served: Served[] = routes
    .filter(servedHere)
    .flatMap((route) => prefixes.map((prefix) => ({ route, label: prefix + route.path, ...routePattern(prefix + route.path) })));
  return (req, res) => {
    // A token that is not a bearer's is rate-limited by the client's address, which Express tells (TRUST_PROXY).
    if (req.method !== 'POST' || !bearerToken(req.headers.authorization) || req.headers.origin !== undefined || !hasNoBody(req)) return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const s of served) {
      const m = s.pattern.exec(path);
      if (!m) continue;
      const params = decodeParams(s.names, m);
      // A segment that does not decode: Express answers it.
      if (!params) return false;
      void serve(d, s, req, res, params, q < 0 ? '' : url.slice(q + 1));
      return true;
    }
    return false;
  };
}

async function serve(d: CommandPathDeps, s: Served, req: IncomingMessage, res: ServerResponse, params: Record<string, string>, search: string): Promise<void> {
  const receivedAt = d.now();
  const timed = d.timeRoute?.('POST', s.label);
  let status = 200;
  try {
    const { user, body, query } = await admit(s.route, d, {
      authorization: req.headers.authorization,
      // A bearer token names its user (or is refused) before the rate limit: no address is read.
      address: () => 'unknown',
      body: undefined,
      query: parseQuery(search),
    });
    const result = await s.route.handler({ user, params, body, query, receivedAt });
    writeJson(res, 200, result ?? OK, d.headers);
  } catch (error) {
    const answer = lichessError(error);
    status = answer.status;
    if (status >= 500) d.log.warn({ err: error, path: s.label }, 'Lichess command not served');
    if (res.headersSent) return void res.destroy();
    writeJson(res, status, answer.body, { ...d.headers, ...answer.headers });
  } finally {
    timed?.(status);
  }
}

function decodeParams(names: string[], m: RegExpExecArray): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
  } catch {
    return undefined;
  }
  return params;
}
