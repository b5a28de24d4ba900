import { Chess } from 'chess.js';

export type TypedMove = { from: string; to: string; promotion?: 'q' | 'r' | 'b' | 'n' };

const UCI = /^([a-h][1-8])-?([a-h][1-8])=?([qrbn])?$/i;

/**
 * A move typed by a player, in SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`) or UCI (`g1f3`, `e7e8q`), read
 * in the position `fen`: the move, or why it is not one. Keyboard and screen-reader users play
 * with this instead of the board.
 */
export function parseTypedMove(fen: string, typed: string): { ok: true; move: TypedMove; san: string } | { ok: false; error: string } {
  const text = typed.trim().replace(/[+#!?]+$/, '').replace(/^0-0(-0)?$/, (m) => m.replaceAll('0', 'O'));
  if (!text) return { ok: false, error: 'Type a move, e.g. e4, Nf3 or e7e8q.' };
  const chess = new Chess(fen);
  const uci = UCI.exec(text);
  if (uci) {
    const [, from, to, promotion] = uci;
    const legal = chess.moves({ verbose: true }).filter((m) => m.from === from.toLowerCase() && m.to === to.toLowerCase());
    if (!legal.length) return { ok: false, error: `${typed.trim()} is not a legal move here.` };
    const wanted = promotion?.toLowerCase() as TypedMove['promotion'];
    const needsPromotion = legal.some((m) => m.promotion);
    if (needsPromotion && !wanted) return { ok: false, error: `Say which piece to promote to, e.g. ${from}${to}q.` };
    // As in UCI (and the API): a piece named on a move that promotes nothing makes it no move.
    if (!needsPromotion && wanted) return { ok: false, error: `${typed.trim()} is not a legal move here.` };
    const move = legal.find((m) => (m.promotion ?? undefined) === (needsPromotion ? wanted : undefined));
    if (!move) return { ok: false, error: `${typed.trim()} is not a legal move here.` };
    return { ok: true, san: move.san, move: { from: move.from, to: move.to, ...(move.promotion ? { promotion: wanted } : {}) } };
  }
  // chess.js reads SAN leniently (`Ng1f3`, a missing `=`) and throws on anything illegal. A piece
  // letter typed in lower case (`nf3`) is read as a piece once it is not a pawn move (`bxc3` is).
  const readings = /^[nbrqk]/.test(text) ? [text, text[0].toUpperCase() + text.slice(1)] : [text];
  for (const reading of readings) {
    try {
      const move = new Chess(fen).move(reading);
      return { ok: true, san: move.san, move: { from: move.from, to: move.to, ...(move.promotion ? { promotion: move.promotion as TypedMove['promotion'] } : {}) } };
    } catch {
      // the next reading, if any
    }
  }
  return { ok: false, error: `${typed.trim()} is not a legal move here.` };
}
