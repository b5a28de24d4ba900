// The first move's deadline (issue 37: a game was aborted after 30 s with no warning). Until both
// sides have moved, a player's page shows the seconds left beside the clock of the side to move,
// and the hint under the board says who must move by when. The deadline is the room state's
// `firstMoveDeadline`; a spectator's channel does not carry it, and the hint stays general.

import { fill, h, setText } from '../dom.ts';
import type { Color } from '../types/api.ts';
import type { GameModel } from './model.ts';

export const FIRST_MOVE_HINT = 'The clocks start after Black’s first move. A player who does not make their first move in time aborts the game.';

const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;

/** `lines`: each player line (with its `.first-move` badge) and the colour it shows; `mine`: the viewer's colour. */
export function drawFirstMove(o: { g: GameModel; now: number; lines: readonly (readonly [HTMLElement, Color])[]; hint: HTMLElement; mine: Color | undefined }): void {
  const { g } = o;
  const deadline = g.status === 'active' && g.sans.length < 2 ? g.firstMoveDeadline : 0;
  const left = deadline ? Math.max(0, Math.ceil((deadline - o.now) / 1000)) : undefined;
  for (const [el, color] of o.lines) {
    const badge = el.querySelector<HTMLElement>('.first-move')!;
    badge.hidden = left === undefined || g.turn !== color;
    if (left === undefined || badge.hidden) continue;
    // On a phone's narrow line "to play" gives way to the name (the hint under the board says it all).
    const shown = `${left} s`;
    if (badge.firstChild?.textContent !== shown) fill(badge, h('span', null, shown), h('span', { class: 'wide-only' }, ' to play'));
    badge.setAttribute('aria-label', `${seconds(left)} left to play the first move`);
  }
  if (left === undefined) return setText(o.hint, FIRST_MOVE_HINT);
  const who = g.turn === o.mine ? 'You have' : `${g.turn === 'white' ? 'White' : 'Black'} has`;
  setText(o.hint, `${who} ${seconds(left)} to play the first move, or the game is aborted. The clocks start after Black’s first move.`);
}
