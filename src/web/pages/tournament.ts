// One arena: its clock, join and withdraw, the standings (paged, the fire visible), the games in
// progress, and the player's own game. Live over the realtime channel `tournament:<id>`
// (`standings`, `pairing`, `status`; it takes a token, so a reader who is signed out sees the
// arena refreshed every few seconds instead). The player's pairing itself arrives on their
// `user:` channel, which takes them to the board from any page (src/web/userFeed.ts).

import { ApiError, get, plainError, post, request } from '../api.ts';
import { fill, formatDate, h, setText, userLink } from '../dom.ts';
import { ServerTime } from '../play/clock.ts';
import { describeEnd, fromDetail } from '../play/model.ts';
import { subscribe } from '../realtime.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { flame } from '../tournaments/flame.ts';
import { arenaTiming, describeArena, fireTitle, onFire } from '../tournaments/format.ts';
import type { GameDetail, GameSummary, Standing, Tournament } from '../types/api.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;

const PAGE_SIZE = 50;
/** While the channel is not there (signed out) or for what it does not carry (joins). */
const POLL_MS = { signedIn: 15_000, signedOut: 5_000 };

export async function tournamentPage(ctx: PageContext & { go: Go }): Promise<void> {
  const id = ctx.params.id.toLowerCase();
  const me = session.user();
  const time = new ServerTime();
  let t: Tournament;
  try {
    t = await load(id, time);
  } catch (e) {
    if (e instanceof ApiError && (e.code === 'TOURNAMENT_NOT_FOUND' || e.status === 404)) {
      return fill(ctx.root, h('h1', null, 'No such tournament'), h('p', null, h('a', { href: '/tournaments' }, 'All tournaments')));
    }
    throw e;
  }
  if (ctx.signal.aborted) return;

  const title = h('h1', null, t.name);
  const info = h('p', { class: 'info' });
  const countdown = h('p', { class: 'countdown', role: 'timer' });
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const actions = h('p', { class: 'actions' });
  const mine = h('div', { class: 'my-game', hidden: true });
  const rows = h('tbody');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of the standings' });
  const games = h('ul', { class: 'arena-games' });
  const say = (text: string, error = false) => {
    status.className = error ? 'status error' : 'status';
    status.textContent = text;
  };

  fill(ctx.root,
    h('div', { class: 'arena-head' }, title, info, countdown),
    status, actions, mine,
    h('div', { class: 'arena' },
      h('section', { class: 'card', 'aria-labelledby': 'standings-h' },
        h('h2', { id: 'standings-h' }, 'Standings'),
        h('div', { class: 'table-wrap' }, h('table', { class: 'standings' },
          h('thead', null, h('tr', null,
            h('th', { scope: 'col' }, h('abbr', { title: 'Rank' }, '#')), h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Score'),
            h('th', { scope: 'col' }, 'Games'), h('th', { scope: 'col' }, h('abbr', { title: 'Wins, draws, losses' }, 'W–D–L')),
            h('th', { scope: 'col' }, h('abbr', { title: 'Performance rating' }, 'Perf.')))),
          rows)),
        pager),
      h('section', { class: 'card', 'aria-labelledby': 'arena-games-h' }, h('h2', { id: 'arena-games-h' }, 'Games in progress'), games)),
    h('p', null, h('a', { href: '/tournaments' }, 'All tournaments')));

  // ---- drawing ------------------------------------------------------------------------------

  let page = 1;
  let standings: Standing[] = t.standings.slice(0, PAGE_SIZE);

  const drawHead = () => {
    setText(title, t.name);
    // A finished arena has nobody in it any more: its players are those who stand in it.
    const count = t.status === 'finished' ? t.standings_total : t.player_count;
    const players = `${count} player${count === 1 ? '' : 's'}${t.max_players && t.status !== 'finished' ? ` of ${t.max_players}` : ''}`;
    setText(info, `${describeArena(t)} arena · by ${t.creator.username} · ${players} · ${formatSpan(t.starts_at, t.ends_at)}`);
    tick();
    const mineRow = t.standings.find((s) => s.user.id === me?.id);
    const over = t.status === 'finished' || time.now() >= Date.parse(t.ends_at);
    const full = t.max_players !== null && t.player_count >= t.max_players;
    fill(actions,
      !me ? (over ? null : h('a', { class: 'button primary', href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in to join'))
        : over ? null
          : t.joined ? h('button', { type: 'button', class: 'withdraw', onclick: () => act('withdraw') }, t.status === 'running' ? 'Withdraw (pause)' : 'Withdraw')
            : h('button', { type: 'button', class: 'primary join', disabled: full, onclick: () => act('join') }, full ? 'Full' : mineRow?.withdrawn ? 'Join again' : 'Join'),
      t.joined ? h('span', { class: 'badge' }, t.status === 'running' ? 'You are in: you are paired as soon as you are free' : 'You are in') : null,
      !t.joined && mineRow?.withdrawn && !over ? h('span', { class: 'muted' }, 'You withdrew: your points are kept; join again to be paired.') : null);
  };

  const tick = () => setText(countdown, t.status === 'finished' ? `Finished ${formatDate(t.ends_at)}` : arenaTiming(t, time.now()));
  const ticker = setInterval(tick, 1000);
  ctx.cleanup(() => clearInterval(ticker));

  const drawStandings = () => {
    if (!standings.length) {
      fill(rows, h('tr', null, h('td', { colspan: 6, class: 'empty' }, t.status === 'upcoming' ? 'Nobody has joined yet.' : 'Nobody is playing.')));
    } else {
      fill(rows, standings.map((s) => h('tr', { class: s.user.id === me?.id ? 'me' : undefined, 'data-user': s.user.username },
        h('td', null, String(s.rank)),
        h('td', null, userLink(s.user.username), s.withdrawn ? h('span', { class: 'muted' }, ' (withdrawn)') : null),
        h('td', { class: 'score' }, String(s.score),
          onFire(s) ? h('span', { class: 'fire', title: fireTitle(s) }, flame(), h('span', { class: 'visually-hidden' }, ` ${fireTitle(s)}`)) : null),
        h('td', null, String(s.games)),
        h('td', null, `${s.wins}–${s.draws}–${s.losses}`),
        h('td', null, s.performance === null ? '–' : String(s.performance)))));
    }
    const pages = Math.max(1, Math.ceil(t.standings_total / PAGE_SIZE));
    fill(pager,
      page > 1 ? h('button', { type: 'button', onclick: () => void turn(page - 1) }, '← Previous') : null,
      pages > 1 ? ` Page ${page} of ${pages} ` : null,
      page < pages ? h('button', { type: 'button', onclick: () => void turn(page + 1) }, 'Next →') : null);
  };

  const loadStandingsPage = async () => {
    if (page === 1) return void (standings = t.standings.slice(0, PAGE_SIZE));
    const res = await request<Standing[]>('GET', `/tournaments/${id}/standings?page=${page}&limit=${PAGE_SIZE}`);
    standings = res.data;
  };
  const turn = async (n: number) => {
    page = n;
    await loadStandingsPage().catch((e) => say(errorText(e), true));
    drawStandings();
  };

  /** The games in progress, and the player's own game: the one on now, else how the last ended. */
  const drawGames = async () => {
    // The list of games needs a token (GET /games).
    if (!me) return fill(games, h('li', { class: 'empty' }, h('a', { href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in'), ' to see them.'));
    const active = await get<GameSummary[]>(`/games?tournament_id=${id}&status=active&limit=50`);
    if (ctx.signal.aborted) return;
    fill(games, active.length
      ? active.map((g) => h('li', null, userLink(g.white_player?.username), ' – ', userLink(g.black_player?.username), ' ', h('a', { href: `/play/${g.id}` }, 'Watch')))
      : h('li', { class: 'empty' }, 'None right now.'));
    const playing = active.find((g) => g.white_player?.id === me.id || g.black_player?.id === me.id);
    if (playing) {
      const opponent = playing.white_player?.id === me.id ? playing.black_player : playing.white_player;
      mine.hidden = false;
      return fill(mine, h('p', null, `Your game against ${opponent?.username ?? 'your opponent'} is on. `, h('a', { class: 'button primary', href: `/play/${playing.id}` }, 'Go to your board')));
    }
    const [last] = await get<GameSummary[]>(`/games?tournament_id=${id}&player_id=${me.id}&limit=1`);
    if (!last || last.status === 'active' || ctx.signal.aborted) return void (mine.hidden = true);
    const detail = await get<GameDetail>(`/games/${last.id}`);
    if (ctx.signal.aborted) return;
    const color = detail.white_player?.id === me.id ? 'white' : 'black';
    const opponent = color === 'white' ? detail.black_player : detail.white_player;
    const change = detail.rating_changes?.[color];
    const outcome = detail.status === 'abandoned' ? '' : detail.winner === null ? 'a draw' : detail.winner === color ? 'you won' : 'you lost';
    mine.hidden = false;
    fill(mine, h('p', { class: 'last-game' }, `Your last game, against ${opponent?.username ?? '?'}: ${outcome ? `${outcome}. ` : ''}${describeEnd(fromDetail(detail, 0))}.`,
      change !== undefined && detail.status === 'finished' ? [' ', h('span', { class: change >= 0 ? 'gain' : 'loss' }, change >= 0 ? `+${change}` : `−${-change}`)] : null,
      ' ', h('a', { href: `/play/${detail.id}` }, 'See the game')));
  };

  // ---- changes ------------------------------------------------------------------------------

  const act = async (what: 'join' | 'withdraw') => {
    try {
      t = await post<Tournament>(`/tournaments/${id}/${what}`);
      say(what === 'join' ? (t.status === 'running' ? 'You joined: you will be paired in a moment.' : 'You joined: you are paired when the arena starts.') : 'You withdrew: you are not paired any more. Your points are kept.');
      await loadStandingsPage();
      drawHead();
      drawStandings();
    } catch (e) {
      say(errorText(e), true);
    }
  };

  let refreshing: ReturnType<typeof setTimeout> | undefined;
  /** Reads the arena again, once for a burst of news. */
  const refresh = () => {
    clearTimeout(refreshing);
    refreshing = setTimeout(async () => {
      try {
        const was = t.status;
        t = await load(id, time);
        if (ctx.signal.aborted) return;
        await loadStandingsPage();
        if (was !== t.status) say(t.status === 'running' ? 'The arena has started.' : t.status === 'finished' ? 'The arena is over.' : '');
        drawHead();
        drawStandings();
        await drawGames();
      } catch {
        // the next news or the poll tries again
      }
    }, 300);
  };
  ctx.cleanup(() => clearTimeout(refreshing));

  if (me) {
    const channel = subscribe(`tournament:${id}`, {
      token: session.accessToken,
      onMessage: (m) => {
        if (typeof m.ts === 'number') time.observe(m.ts);
        if (m.type === 'standings' && page === 1) {
          // The message carries the first 100: the first page is drawn from it at once.
          t = { ...t, standings: m.standings as Standing[], standings_total: m.standings_total as number };
          standings = t.standings.slice(0, PAGE_SIZE);
          drawStandings();
        }
        if (m.type === 'standings' || m.type === 'pairing' || m.type === 'status') refresh();
      },
      onError: (_code, message) => say(message, true),
      onStatus: (connected) => connected && refresh(), // after a dropped socket, what was missed
    });
    ctx.cleanup(() => channel.close());
  }
  const poll = setInterval(() => t.status !== 'finished' && refresh(), me ? POLL_MS.signedIn : POLL_MS.signedOut);
  ctx.cleanup(() => clearInterval(poll));

  drawHead();
  drawStandings();
  await drawGames().catch(() => {});
}

/** "23 Nov 2026, 18:00 – 19:00", the day once when both are on it. */
function formatSpan(from: string, to: string): string {
  const start = formatDate(from);
  const end = formatDate(to);
  const day = (d: string) => new Date(d).toDateString();
  const time = new Date(to).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return `${start} – ${day(from) === day(to) ? time : end}`;
}

async function load(id: string, time: ServerTime): Promise<Tournament> {
  const res = await request<Tournament>('GET', `/tournaments/${encodeURIComponent(id)}`);
  const date = Date.parse(res.headers.get('date') ?? '');
  if (Number.isFinite(date)) time.observe(date);
  return res.data;
}

const errorText = plainError;
