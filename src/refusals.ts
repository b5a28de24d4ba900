/**
 * Client mistakes and contention the service refused, counted for /metrics
 * (`chess_refusals_total{kind}`). They are answers, not faults: logged at debug without a stack,
 * so that nobody can fill the log by sending junk.
 * - malformed_frame: a socket frame Colyseus could not decode (rooms/frames.ts)
 * - socket_error: a WebSocket protocol error of the client (an oversized or invalid frame)
 * - join_refused: a /matchmake request answered 4xx (no token, unknown room, busy seeker, …)
 * - lease_held: a room could not be created here because another node holds its lease
 */
export const REFUSAL_KINDS = ['malformed_frame', 'socket_error', 'join_refused', 'lease_held'] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** One count per process, like prom-client's default registry. */
export const refusals: Record<RefusalKind, number> = { malformed_frame: 0, socket_error: 0, join_refused: 0, lease_held: 0 };

export function countRefusal(kind: RefusalKind): void {
  refusals[kind]++;
}
