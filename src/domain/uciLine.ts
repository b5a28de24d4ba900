import { Chess } from 'chess.js';

/**
 * A game's moves in UCI (`e2e4`, `e7e8q`, castling `e1g1`), replayed from its SAN from the
 * standard position: the detail of a game lists SAN, Lichess's game stream sends UCI.
 */
export function uciLine(sans: readonly string[]): string[] {
  const chess = new Chess();
  return sans.map((san) => {
    const m = chess.move(san);
    return `${m.from}${m.to}${m.promotion ?? ''}`;
  });
}
