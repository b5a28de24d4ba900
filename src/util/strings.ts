/**
 * The string as one flat piece. V8 makes `a + b`, template literals and JSON.stringify's output
 * of more than a few dozen characters into ropes (a node per piece, 32 bytes each, plus the
 * pieces), and flattens a rope only when something reads it whole. A string kept for long and
 * rarely read (a movetext, a replay buffer entry, a remembered command) is cheaper flattened
 * once: converting it to a number reads it whole, which flattens it in place.
 */
export function flat(s: string): string {
  void Number(s);
  return s;
}
