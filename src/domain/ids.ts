/** Every id the service hands out is a UUID, written in lower case (PostgreSQL's and randomUUID's form). */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one parser of an id a client sent (a path parameter, a stream path, a channel name): its
 * canonical lower-case form, or undefined when it is not a UUID (DESIGN 2.8: it then names
 * nothing, 404). PostgreSQL compares uuids ignoring case but everything keyed by the text does not
 * (Redis channels, room ids, comparisons with a caller's id), so an id is lower-cased once, here,
 * before anything uses it.
 */
export function parseId(value: unknown): string | undefined {
  return typeof value === 'string' && UUID_RE.test(value) ? value.toLowerCase() : undefined;
}
