/**
 * A Lichess client's conversation with the service, as a recording proxy saw it (DESIGN 2.13): what
 * a real client (lichess-bot, a Board API library) sent, in its order, and what it read back,
 * stream lines included. The recordings under test/fixtures/lichess/ are replayed against the
 * running service by test/lichess/replay.test.ts; they hold no client code, only the protocol.
 *
 * One event a line (JSON), in the order the proxy saw them; `t` is milliseconds since the
 * recording began, `client` the proxy's name for whoever sent it, `id` numbers the exchange.
 * Tokens are never written: a request's bearer token is the client's own, and a token in a body
 * or an answer (the token test) is written `{token}`.
 */
export type ConversationEvent =
  | {
      kind: 'request';
      t: number;
      client: string;
      id: number;
      method: string;
      path: string;
      /** The headers that change an answer: content-type, accept; whether a token was sent. */
      headers: Record<string, string>;
      body?: string;
    }
  | { kind: 'response'; t: number; client: string; id: number; status: number; headers: Record<string, string>; body?: string }
  /** One line of a streamed answer (an NDJSON body); '' is a keep-alive. */
  | { kind: 'line'; t: number; client: string; id: number; text: string }
  /** The streamed answer ended (`by` server: its body ended; client: the client hung up; broken: the connection to the service broke). */
  | { kind: 'end'; t: number; client: string; id: number; by: 'server' | 'client' | 'broken' };

export const TOKEN_PLACEHOLDER = '{token}';

/** The request and answer headers a recording keeps. */
export const KEPT_REQUEST_HEADERS = ['content-type', 'accept'] as const;
export const KEPT_RESPONSE_HEADERS = ['content-type', 'retry-after'] as const;

export function isStreamed(contentType: string | undefined): boolean {
  return (contentType ?? '').startsWith('application/x-ndjson');
}

export function parseConversation(text: string): ConversationEvent[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ConversationEvent);
}
