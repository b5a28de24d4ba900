import { Client } from '@colyseus/sdk';

/**
 * The rooms of this service, reached on the page's own origin. Tokens go in the join options
 * (the body of the /matchmake request), never `client.auth.token`, which the SDK would also
 * write into the socket's URL (README, "Room protocol").
 */
export const rooms = new Client();

/** The API's error code in a refused join ("CODE: message", README), or the SDK's text. */
export function joinErrorCode(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /^([A-Z_]+):/.exec(message)?.[1] ?? message;
}
