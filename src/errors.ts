import { isBackendUnavailable, isStatementTimeout } from './util/unavailable.ts';

/**
 * Every error the service reports, with its HTTP status. One table, used by REST (the error
 * middleware) and by sockets (`{type: 'error', code, message}`), so both speak the same codes.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_MOVE: 400,
  INVALID_TOKEN: 400,
  INVALID_CREDENTIALS: 401,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  MISSING_SCOPE: 403,
  SESSION_REQUIRED: 403,
  NOT_A_PLAYER: 403,
  NOT_YOUR_TURN: 403,
  NOT_FOUND: 404,
  GAME_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  DRAW_OFFER_NOT_FOUND: 404,
  TAKEBACK_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  CLUB_NOT_FOUND: 404,
  PUZZLE_NOT_FOUND: 404,
  TOURNAMENT_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_ALREADY_EXISTS: 409,
  USERNAME_ALREADY_EXISTS: 409,
  PLAYER_BUSY: 409,
  GAME_NOT_ACTIVE: 409,
  GAME_NOT_PENDING: 409,
  GAME_NOT_FINISHED: 409,
  DRAW_OFFER_PENDING: 409,
  DRAW_OFFER_LIMIT: 409,
  DRAW_OFFER_NOT_PENDING: 409,
  GAME_NOT_ABORTABLE: 409,
  CLAIM_NOT_ALLOWED: 409,
  REMATCH_NOT_ALLOWED: 409,
  TAKEBACK_PENDING: 409,
  TAKEBACK_LIMIT: 409,
  TAKEBACK_NOT_ALLOWED: 409,
  TAKEBACK_NOT_PENDING: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  WEBHOOK_LIMIT: 409,
  FRIEND_LIMIT: 409,
  CLUB_NAME_TAKEN: 409,
  CLUB_LIMIT: 409,
  CLUB_OWNER_CANNOT_LEAVE: 409,
  ALREADY_MEMBER: 409,
  TOURNAMENT_FULL: 409,
  TOURNAMENT_FINISHED: 409,
  TOURNAMENT_LIMIT: 409,
  TOKEN_LIMIT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_ATTEMPTS: 429,
  RATE_LIMIT_EXCEEDED: 429,
  EXPORT_IN_PROGRESS: 429,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Field name → messages, as the interface's validation errors carry them. */
export type ErrorDetails = Record<string, string[]>;

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra top-level members of the error object, e.g. `retryAfter`. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  toJSON() {
    return {
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

export const validationError = (field: string, message: string) =>
  new AppError('VALIDATION_ERROR', 'Invalid request data', { [field]: [message] });

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * Any error as one of ours: body-parser's (bad JSON, too large, unsupported charset) 4xx, a
 * database or Redis out of reach 503 with Retry-After, anything unexpected INTERNAL_ERROR. Every
 * error answer of every surface is made from it (the envelope; Lichess's `{"error": ...}`).
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; message?: string };
  switch (e?.type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 64 KB');
    case 'entity.parse.failed':
      return new AppError('VALIDATION_ERROR', 'Request body is not valid JSON', { body: ['must be valid JSON'] });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.size.invalid':
    case 'request.aborted':
      return new AppError('VALIDATION_ERROR', e.message ?? 'Malformed request body', { body: [e.message ?? 'malformed'] });
  }
  // PostgreSQL or Redis is restarting or out of reach: nothing is wrong with the request.
  if (isBackendUnavailable(err)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The service is briefly unavailable, retry shortly', undefined, { retryAfter: 1 });
  }
  // PostgreSQL cancelled a statement that ran past the statement timeout (src/db/pool.ts): the
  // database is overloaded or a lock was held too long. Nothing landed, and the request may be
  // sent again: an answer to retry, logged (with the statement's error) as a warning.
  if (isStatementTimeout(err)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is slow to answer, retry shortly', undefined, { retryAfter: 1 });
  }
  // Other 4xx raised by Express itself (e.g. a malformed URI) keep their class.
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('VALIDATION_ERROR', e.message ?? 'Malformed request');
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}
