// Which requests the body parsers may skip: they would only look and pass them on.
import type { IncomingMessage } from 'node:http';

/**
 * A request that every body parser passes by untouched: no body at all (a GET), or an empty one
 * with no Content-Type (a command's POST, as Lichess's clients send it), to which type-is, which
 * body-parser asks, answers that no parser's type matches.
 */
export function hasNoBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  return length === undefined || (length === '0' && req.headers['content-type'] === undefined);
}
