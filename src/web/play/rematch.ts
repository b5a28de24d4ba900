// After the end of a game: the rematch (DESIGN 2.11). A player asks (a challenge to the opponent),
// the opponent accepts or declines it here or in the lobby, and once it starts both pages go to
// its board. What the page knows of it is the game's `rematch` (the detail, the lingering room's
// `rematch_offer`) and the user's channel, which still speaks once the room is gone.

import { plainError, post } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { ChannelMessage } from '../realtime.ts';
import type { Color, GameDetail, PendingRematch, Rematch } from '../types/api.ts';
import { rematchNews, type GameModel } from './model.ts';

type Page = {
  gameId: string;
  me: { id: string } | undefined;
  /** The rematch changed (the page keeps it in its game and draws again). */
  changed: (r: Rematch) => void;
  /** The rematch started: to its board. */
  go: (gameId: string) => void;
  say: (text: string, urgent?: boolean) => void;
};

export class RematchPanel {
  private shown = '';

  constructor(
    readonly el: HTMLElement,
    private page: Page,
  ) {}

  /** A player of a finished game that no arena paired sees the rematch as it stands. */
  draw(g: GameModel, mine: Color | undefined): void {
    const shown = g.status === 'finished' && !!mine && !g.tournamentId;
    this.el.hidden = !shown;
    if (!shown) return;
    const r = g.rematch;
    const key = r ? `${r.game_id}:${r.status}:${r.offered_by}` : 'none';
    if (key === this.shown) return;
    this.shown = key;
    const opponent = g[mine === 'white' ? 'black' : 'white']?.username ?? 'Your opponent';
    const button = (label: string, action: () => Promise<void>, primary = false) =>
      h('button', { type: 'button', class: primary ? 'primary' : null, onclick: () => void action().catch((e) => this.page.say(plainError(e), true)) }, label);
    if (!r) fill(this.el, button('Rematch', () => this.ask(), true));
    else if (r.status === 'pending' && r.offered_by === this.page.me?.id) {
      fill(this.el, h('p', null, `Rematch offered. Waiting for ${opponent}…`), button('Cancel the rematch', () => this.answer(r, 'cancel')));
    } else if (r.status === 'pending') {
      fill(this.el, h('p', null, `${opponent} wants a rematch.`), button('Accept rematch', () => this.answer(r, 'accept'), true), ' ',
        button('Decline', () => this.answer(r, 'decline')));
    } else if (r.status === 'accepted') fill(this.el, h('a', { class: 'button primary', href: `/play/${r.game_id}` }, 'Go to the rematch'));
    else fill(this.el, h('p', null, { declined: 'The rematch was declined.', cancelled: 'The rematch was cancelled.', expired: 'The rematch offer lapsed.' }[r.status]));
  }

  /** A message of the user's channel (see rematchNews). */
  news(m: ChannelMessage, current: Rematch | null | undefined): void {
    const news = rematchNews(m, this.page.gameId, current);
    if (news && 'start' in news) this.page.go(news.start);
    else if (news) this.page.changed(news.rematch);
  }

  /** Asks (201, or 200 when asked before: our pending challenge), or accepts the opponent's ask (200: the new game, active). */
  private async ask(): Promise<void> {
    const answer = await post<PendingRematch | GameDetail>(`/games/${this.page.gameId}/rematch`);
    if (answer.status === 'active') return this.page.go(answer.id);
    this.page.changed({ game_id: answer.id, offered_by: this.page.me!.id, status: 'pending' });
  }

  private async answer(r: Rematch, how: 'accept' | 'decline' | 'cancel'): Promise<void> {
    const detail = await post<GameDetail>(`/games/${r.game_id}/${how}`);
    if (how === 'accept' && detail.status === 'active') return this.page.go(detail.id);
    this.page.changed({ ...r, status: how === 'decline' ? 'declined' : 'cancelled' });
  }
}

/** How often a spectator of a finished game looks for the players' rematch, and for how long. */
const LOOK_MS = 3000;
const FOLLOW_MS = 10 * 60_000;

/**
 * The finished game's `rematch`, read as anyone may read it: the first line of its public game
 * stream over HTTP (DESIGN 2.6) is `state`, whose `game` is the detail (with `rematch`, DESIGN
 * 2.11); a finished game's stream ends after it with `game_end`. `GET /games/{id}` needs a token.
 */
async function publicRematch(gameId: string): Promise<Rematch | null | undefined> {
  const res = await fetch(`/v1/games/${gameId}/stream`, { headers: { Accept: 'application/x-ndjson' } });
  if (!res.ok || !res.body) return undefined;
  // The first line is all it takes: read to it and hang up (a stream still open ends here too).
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    void reader.cancel();
  }
  const first = text.split('\n').find((line) => line.trim() !== '');
  const m = first ? (JSON.parse(first) as { type?: string; game?: GameDetail }) : undefined;
  return m?.type === 'state' ? m.game?.rematch : undefined;
}

/**
 * A spectator, signed in or not, follows the players to their rematch, as on Lichess. The game's
 * channel ended with the game (a spectator hears of no rematch there), so the finished game's
 * `rematch`, which says how it stands, is read every few seconds while the tab is shown, until
 * the rematch is answered or ten minutes have passed; `go` is called with the rematch once it has
 * started. Returns the way to stop.
 */
export function followRematchAsSpectator(gameId: string, go: (gameId: string) => void): () => void {
  const until = Date.now() + FOLLOW_MS;
  const look = async () => {
    if (Date.now() > until) return clearInterval(timer);
    if (document.hidden) return;
    try {
      const r = await publicRematch(gameId);
      if (!r || r.status === 'pending') return;
      clearInterval(timer);
      if (r.status === 'accepted') go(r.game_id);
    } catch {
      // looked at again next time
    }
  };
  const timer = setInterval(() => void look(), LOOK_MS);
  return () => clearInterval(timer);
}
