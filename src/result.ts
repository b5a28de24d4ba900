// One shape for an outcome that may fail in an expected way (chessops' `Result`): the value, or
// an error that is data. Data, not a throw, because the error often has to travel: from the
// decider through the actor to a socket's `error` message, or back across processes from a room
// (`remoteRoomCall`), where a thrown error loses its class and code on the way.

import type { ErrorDetails } from './errors.ts';

/** An expected failure as the API reports it: one of our codes, a message, per-field details. */
export type Failure<Code extends string = string> = { code: Code; message: string; details?: ErrorDetails };

export type Result<T, E = Failure> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });

/** A failure of any shape (a field's errors, the field a write collided with). */
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** A failure as the API reports it. */
export const fail = <Code extends string>(code: Code, message: string, details?: ErrorDetails): Result<never, Failure<Code>> =>
  err(details ? { code, message, details } : { code, message });
