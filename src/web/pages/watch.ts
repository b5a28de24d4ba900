// Watch (DESIGN 2.14): the TV, a board that follows the featured game and the next one when it
// ends, and the live games, the highest average rating first, each a small board that follows its
// moves. All of it over one realtime socket: the `tv` channel and a `game:<id>` channel per game
// listed. The list is read again when a listed game ends, and every half minute for new ones.

import { get, plainError } from '../api.ts';
import { openChannels } from '../channels.ts';
import { fill, h, userLink } from '../dom.ts';
import { MiniBoard } from '../play/miniBoard.ts';
import type { ChannelMessage } from '../realtime.ts';
import type { PageContext } from '../router.ts';
import { describeKind } from '../timeControl.ts';
import type { Color, LiveGame, LivePlayer } from '../types/api.ts';

const LIST_LIMIT = 20;
const RELOAD_MS = 30_000;

type Card = { el: HTMLElement; board: MiniBoard };
type Players = { white: LivePlayer; black: LivePlayer };

const player = (p: LivePlayer) =>
  h('span', { class: 'player' }, p.title ? [h('span', { class: 'badge bot' }, p.title), ' '] : null, userLink(p.username), ` (${p.rating})`);

/** A move of a `move` message in UCI, as the TV's `last_move` says it. */
const uciOf = (m: { from?: unknown; to?: unknown; promotion?: unknown }) => `${m.from}${m.to}${typeof m.promotion === 'string' ? m.promotion : ''}`;

export async function watchPage(ctx: PageContext): Promise<void> {
  const tvBox = h('div', { class: 'tv-box' });
  const list = h('div', { class: 'live-games' });
  const status = h('p', { class: 'status', role: 'status' });
  fill(
    ctx.root,
    h('h1', null, 'Watch'),
    h('div', { class: 'watch' },
      h('section', { class: 'tv card', 'aria-labelledby': 'tv-title' }, h('h2', { id: 'tv-title' }, 'TV'), tvBox),
      h('section', { class: 'live card', 'aria-labelledby': 'live-title' }, h('h2', { id: 'live-title' }, 'Live games'), status, list)),
  );

  const cards = new Map<string, Card>();
  let tv: { gameId: string | null; board?: MiniBoard } = { gameId: null };

  const feed = openChannels((channel, m) => (channel === 'tv' ? onTv(m) : onGame(channel.slice('game:'.length), m)));
  ctx.cleanup(() => feed.close());

  function onTv(m: ChannelMessage): void {
    if (m.type === 'featured') {
      const gameId = typeof m.game_id === 'string' ? m.game_id : null;
      tv = { gameId };
      tvBox.dataset.gameId = gameId ?? '';
      if (!gameId) return fill(tvBox, h('p', { class: 'empty' }, 'No game is being played right now.'));
      const players = m.players as Players;
      const orientation = m.orientation as Color;
      const board = new MiniBoard(orientation, String(m.fen), (m.last_move as string | null) ?? null, `${players.white.username} against ${players.black.username}`);
      tv.board = board;
      const top = orientation === 'white' ? players.black : players.white;
      const bottom = orientation === 'white' ? players.white : players.black;
      fill(tvBox, h('p', { class: 'tv-player top' }, player(top)), board.el, h('p', { class: 'tv-player bottom' }, player(bottom)),
        h('p', null, h('a', { href: `/play/${gameId}` }, 'Open the game')));
    } else if (m.type === 'fen' && m.game_id === tv.gameId) {
      tv.board?.show(String(m.fen), (m.last_move as string | null) ?? null);
    }
  }

  function onGame(id: string, m: ChannelMessage): void {
    const card = cards.get(id);
    if (!card) return;
    if (m.type === 'state') {
      const game = m.game as { status: string; fen: string };
      if (game.status !== 'active') return void reload();
      card.board.show(game.fen, null);
    } else if (m.type === 'move') {
      const move = m.move as { fen: string; from: string; to: string; promotion?: string | null };
      card.board.show(move.fen, uciOf(move));
    } else if (m.type === 'takeback') {
      card.board.show(String(m.fen), null);
    } else if (m.type === 'game_end') {
      void reload();
    }
  }

  const cardOf = (g: LiveGame): Card => {
    const board = new MiniBoard('white', g.fen, g.last_move, `${g.players.white.username} against ${g.players.black.username}`);
    const el = h('article', { class: 'live-game', 'data-game-id': g.id },
      h('a', { class: 'board-link', href: `/play/${g.id}`, 'aria-label': `Watch ${g.players.white.username} against ${g.players.black.username}` }, board.el),
      h('p', null, player(g.players.black)),
      h('p', null, player(g.players.white)),
      h('p', { class: 'info' }, describeKind(g)));
    return { el, board };
  };

  // One read at a time; an end seen during a read asks for one more after it.
  let reading = false;
  let again = false;
  async function reload(): Promise<void> {
    if (reading) return void (again = true);
    reading = true;
    try {
      do {
        again = false;
        await readList();
      } while (again && !ctx.signal.aborted);
    } finally {
      reading = false;
    }
  }

  async function readList(): Promise<void> {
    let games: LiveGame[];
    try {
      games = await get<LiveGame[]>(`/games/live?limit=${LIST_LIMIT}`);
    } catch (error) {
      status.textContent = plainError(error);
      return;
    }
    if (ctx.signal.aborted) return;
    status.textContent = '';
    const ids = new Set(games.map((g) => g.id));
    for (const id of [...cards.keys()]) {
      if (ids.has(id)) continue;
      cards.delete(id);
      feed.drop(`game:${id}`);
    }
    for (const g of games) {
      if (cards.has(g.id)) continue;
      cards.set(g.id, cardOf(g));
      feed.add(`game:${g.id}`);
    }
    if (games.length === 0) list.replaceChildren(h('p', { class: 'empty' }, 'No game is being played right now.'));
    else list.replaceChildren(...games.map((g) => cards.get(g.id)!.el));
  }

  feed.add('tv');
  const timer = setInterval(() => void reload(), RELOAD_MS);
  ctx.cleanup(() => clearInterval(timer));
  await reload();
}
