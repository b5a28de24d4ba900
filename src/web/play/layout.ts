// The board page's parts: built once, then filled by playPage as the game changes.

import { fill, h } from '../dom.ts';
import { FIRST_MOVE_HINT } from './firstMove.ts';

export function noGame(root: HTMLElement): void {
  fill(root, h('h1', null, 'No game at this address'), h('p', null, 'Check the link you were given, or ', h('a', { href: '/' }, 'find a game in the lobby'), '.'));
}

export function drawMoves(list: HTMLElement, sans: string[]): void {
  if (list.childElementCount === Math.ceil(sans.length / 2) && list.dataset.plies === String(sans.length)) return;
  list.dataset.plies = String(sans.length);
  const rows = [];
  for (let i = 0; i < sans.length; i += 2) {
    rows.push(h('li', null, h('span', { class: 'white-move ply', 'data-ply': i + 1 }, sans[i]),
      sans[i + 1] ? h('span', { class: 'black-move ply', 'data-ply': i + 2 }, sans[i + 1]) : null));
  }
  fill(list, rows);
  list.scrollTop = list.scrollHeight;
}

/** Marks the move whose position the board shows (stepping back through the game). */
export function markPly(list: HTMLElement, ply: number | undefined): void {
  for (const el of list.querySelectorAll('.ply.current')) el.classList.remove('current');
  if (ply === undefined) return;
  const el = list.querySelector(`.ply[data-ply="${ply}"]`);
  el?.classList.add('current');
  el?.scrollIntoView?.({ block: 'nearest' });
}

/** The form that takes a move typed in SAN or UCI (keyboard and screen-reader users play with it). */
export function typedMoveForm() {
  const input = h('input', { id: 'typed-move', name: 'move', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', placeholder: 'e4, Nf3, e7e8q', 'aria-describedby': 'typed-help' });
  const form = h('form', { class: 'typed' },
    h('label', { for: 'typed-move' }, 'Type a move'), input, h('button', { type: 'submit' }, 'Play'),
    h('small', { id: 'typed-help' }, 'SAN (Nf3, O-O, e8=Q) or UCI (g1f3, e7e8q).'));
  return { form, input };
}

/** `chat`: the chat panel's element (src/web/play/chat.ts), last in the side column. */
export function skeleton(chat: HTMLElement) {
  const clockOf = () => h('span', { class: 'clock', role: 'timer' }, '–:––');
  // `first-move`: the seconds left for the first move, on the line of the side to move.
  const playerBar = (cls: string) => h('div', { class: `player ${cls}` }, h('span', { class: 'who' }), h('span', { class: 'first-move', role: 'timer', hidden: true }), clockOf());
  const top = playerBar('top');
  const bottom = playerBar('bottom');
  const board = h('div', { class: 'board-box', role: 'region', 'aria-label': 'Chessboard' });
  const moves = h('ol', { class: 'moves', 'aria-label': 'Moves' });
  const resign = h('button', { type: 'button', class: 'danger' }, 'Resign');
  const offerDraw = h('button', { type: 'button' }, 'Offer draw');
  const flip = h('button', { type: 'button', class: 'flip', title: 'Flip the board' }, 'Flip board');
  // Stepping through the moves (also ← → Home End): the board shows an earlier position.
  const stepButton = (label: string, text: string) => h('button', { type: 'button', 'aria-label': label, title: label }, text);
  const steps = { first: stepButton('First position', '«'), back: stepButton('Previous move', '‹'), forward: stepButton('Next move', '›'), last: stepButton('Current position', '»') };
  const stepper = h('div', { class: 'stepper', role: 'group', 'aria-label': 'Step through the moves' }, steps.first, steps.back, steps.forward, steps.last);
  const viewing = h('p', { class: 'viewing', role: 'status', hidden: true });
  const premove = h('p', { class: 'premove', role: 'status', hidden: true });
  const acceptDraw = h('button', { type: 'button', class: 'primary' }, 'Accept draw');
  const declineDraw = h('button', { type: 'button' }, 'Decline');
  const drawOffer = h('div', { class: 'draw-offer', hidden: true }, h('p', null, 'Your opponent offers a draw.'), acceptDraw, ' ', declineDraw);
  // Before both first moves a player may abort (no result, unrated); later take a move back.
  const abort = h('button', { type: 'button', hidden: true }, 'Abort game');
  const takeback = h('button', { type: 'button', hidden: true }, 'Takeback');
  const controls = h('div', { class: 'controls', hidden: true }, abort, takeback, offerDraw, resign);
  const acceptTakeback = h('button', { type: 'button', class: 'primary' }, 'Accept takeback');
  const declineTakeback = h('button', { type: 'button' }, 'Decline');
  const takebackText = h('p');
  const takebackOffer = h('div', { class: 'takeback-offer', hidden: true }, takebackText, acceptTakeback, ' ', declineTakeback);
  // The opponent left the room: a countdown, then the claim.
  const claim = h('div', { class: 'claim', hidden: true });
  // After the end: the rematch (asked, offered, answered).
  const rematch = h('div', { class: 'rematch', hidden: true });
  const { form: typed, input: typedInput } = typedMoveForm();
  typed.hidden = true;
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const hint = h('p', { class: 'hint', hidden: true }, FIRST_MOVE_HINT);
  const pending = h('div', { class: 'pending', hidden: true });
  const end = h('div', { class: 'end', hidden: true });
  // An arena's next game, announced under the final position.
  const next = h('p', { class: 'next-game', role: 'alert', hidden: true });
  const title = h('h1', null, 'Game');
  const info = h('p', { class: 'info' });
  const area = h('div', { class: 'play-board' }, top, board, bottom);
  const page = h('div', { class: 'play game' },
    h('div', { class: 'play-head' }, title, info),
    area,
    h('div', { class: 'play-side' }, pending, end, rematch, next, drawOffer, takebackOffer, claim, status, hint, premove, moves, stepper, viewing, controls, typed, flip, chat));
  return {
    page, area, top, bottom, board, moves, resign, offerDraw, acceptDraw, declineDraw, drawOffer, controls, typed, typedInput, status, hint, pending, end, title, info, flip, steps, viewing, premove, next,
    abort, takeback, takebackOffer, takebackText, acceptTakeback, declineTakeback, claim, rematch,
  };
}
