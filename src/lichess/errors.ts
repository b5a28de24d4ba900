import type { Response } from 'express';
import { AppError, isAppError, toAppError, type ErrorCode } from '../errors.ts';

/**
 * Our codes whose status Lichess gives otherwise: a move out of turn, a game that is over, an
 * offer or a claim the rules refuse are all 400 there (its clients read a 400 as "the move
 * failed" and go on); every other 409 of ours is a 400 too.
 */
const LICHESS_STATUS: Partial<Record<ErrorCode, number>> = {
  NOT_YOUR_TURN: 400,
  NOT_A_PLAYER: 400,
  INVALID_MOVE: 400,
  VALIDATION_ERROR: 400,
  METHOD_NOT_ALLOWED: 405,
};

/** The words Lichess uses for the answers its clients check by status alone. */
const LICHESS_MESSAGE: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'No such token',
};

/**
 * Any error as Lichess answers it (DESIGN 2.13): `{"error": "..."}` with Lichess's status (400
 * for what the rules refuse, 401 without a valid token, 403 outside the token's scopes, 404 for
 * an unknown game, challenge or user, 429 with Retry-After), never the /v1 envelope.
 */
export function lichessError(error: unknown): { status: number; body: { error: string }; headers: Record<string, string> } {
  const e: AppError = toAppError(error);
  const status = LICHESS_STATUS[e.code] ?? (e.status === 409 ? 400 : e.status);
  const headers: Record<string, string> = {};
  const retryAfter = e.extra?.retryAfter;
  if (typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter);
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return { status, body: { error: LICHESS_MESSAGE[e.code] ?? firstDetail(e) ?? e.message }, headers };
}

/** A bad request's own words where our message is only its heading (`Invalid request data`): Lichess's body has room for one. */
function firstDetail(e: AppError): string | undefined {
  const first = e.code === 'VALIDATION_ERROR' && e.details ? Object.values(e.details).flat()[0] : undefined;
  return typeof first === 'string' ? first : undefined;
}

/** How long a stream refused past a socket cap is told to wait: a place frees when one of the caller's sockets closes. */
const CAPPED_RETRY_SECONDS = 5;

/** A stream refused before it began, as Lichess answers (`{"error"}`, its status, Retry-After on every 429). */
export function refuseStream(res: Response, error: unknown): void {
  if (res.headersSent) return void res.destroy();
  let e = isAppError(error) ? error : new AppError('SERVICE_UNAVAILABLE', 'The stream could not start: connect again', undefined, { retryAfter: 1 });
  if (e.code === 'RATE_LIMIT_EXCEEDED' && typeof e.extra?.retryAfter !== 'number') {
    e = new AppError(e.code, e.message, e.details, { ...e.extra, retryAfter: CAPPED_RETRY_SECONDS });
  }
  const { status, body, headers } = lichessError(e);
  res.status(status).set(headers).json(body);
}
