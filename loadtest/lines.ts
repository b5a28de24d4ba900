import { Chess } from 'chess.js';

export type Uci = { from: string; to: string; promotion?: string };

/** A seeded random game that does not end within `plies` (so every move is a plain move). */
export function randomGame(seed: number, plies: number): Uci[] {
  for (let attempt = 0; ; attempt++) {
    let s = seed * 7919 + attempt;
    const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const chess = new Chess();
    const moves: Uci[] = [];
    while (moves.length < plies && !chess.isGameOver()) {
      const options = chess.moves({ verbose: true });
      const m = options[Math.floor(rand() * options.length)];
      chess.move(m);
      moves.push({ from: m.from, to: m.to, promotion: m.promotion });
    }
    if (moves.length === plies && !chess.isGameOver()) return moves;
  }
}

/** A move in UCI (`e7e8q`), as Lichess's paths and the bench's room messages spell it. */
export const formatUci = (m: Uci): string => `${m.from}${m.to}${m.promotion ?? ''}`;

/** `count` such games from `seed` on, as UCI strings. */
export function randomLines(count: number, plies: number, seed: number): string[][] {
  return Array.from({ length: count }, (_, i) => randomGame(seed + i, plies).map(formatUci));
}

/** The baseline: what the rules alone cost per move (move + isGameOver + fen), in µs. */
export function chessJsLoop(sequences: Uci[][], rounds = 3): number {
  let n = 0;
  const t0 = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) {
    for (const seq of sequences) {
      const chess = new Chess();
      for (const m of seq) {
        chess.move(m);
        chess.isGameOver();
        chess.fen();
        n++;
      }
    }
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}
