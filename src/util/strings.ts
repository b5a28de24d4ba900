/**
 * The string as one flat piece. V8 makes `a + b`, template literals and JSON.stringify's output
 * of more than a few dozen characters into ropes (a node per piece, 32 bytes each, plus the
 * pieces), and flattens a rope only when something reads it whole, even then keeping the rope's
 * head in front of the flat text. A string kept for long and rarely read (a movetext, a replay
 * buffer entry, a remembered command) is cheaper as a copy made flat: JSON.parse makes every
 * string it reads as one new piece, and the round trip gives back every character as it was
 * (lone surrogates included). A 46-character command fingerprint holds 64 bytes this way, 128
 * after `Number(s)` (the way this was done before) and 163 as the rope.
 */
export function flat(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
