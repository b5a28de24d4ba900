// The lobby: quick pairing and a custom seek (a seek pool room: leaving it cancels the seek),
// the open seeks live (the lobby room's state), a challenge by username, incoming and outgoing
// challenges, and the games in progress.

import type { Room } from '@colyseus/sdk';
import { ApiError, findUser, get, plainError, post } from '../api.ts';
import { joinErrorCode, rooms } from '../colyseus.ts';
import { fieldError, fill, h, userLink } from '../dom.ts';
import { lobbyFeed } from '../lobbyFeed.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { categoryOf, DAYS_PER_MOVE, describeKind, formatTimeControl, QUICK_PAIRINGS } from '../timeControl.ts';
import { timeControlFields } from '../timeFields.ts';
import type { Challenge, GameSummary, PendingGame, Seek } from '../types/api.ts';

type Go = (path: string) => void;
type SeekOptions = { initial: number; increment: number; rated: boolean; color: 'white' | 'black' | 'random'; /** A correspondence challenge: the days per move. */ days?: number };

export async function lobbyPage(ctx: PageContext & { go: Go }): Promise<void> {
  const me = session.user();
  const message = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const say = (text: string, error = false) => {
    message.className = error ? 'status error' : 'status';
    message.textContent = text;
  };

  const seeksBody = h('tbody');
  const challengesBox = h('div', { class: 'challenges' });
  const seekingBox = h('div', { class: 'seeking', hidden: true });
  // Errors show where the person is looking: beside the control they used.
  const seekError = fieldError();
  const customError = fieldError();
  const challengeError = fieldError();
  let seekErrorAt = seekError;

  // ---- seeking -------------------------------------------------------------------------------
  let pool: Room | undefined;
  const stopSeeking = () => {
    void pool?.leave();
    pool = undefined;
    seekingBox.hidden = true;
  };
  ctx.cleanup(stopSeeking);

  const seek = async (o: SeekOptions, errorAt = seekError) => {
    if (!me) return ctx.go('/login?next=/');
    stopSeeking();
    seekErrorAt = errorAt;
    errorAt.clear();
    const label = `${formatTimeControl(o.initial, o.increment)} ${o.rated ? 'rated' : 'casual'}`;
    fill(seekingBox, h('p', null, `Seeking an opponent: ${label}…`), h('button', { type: 'button', onclick: stopSeeking }, 'Cancel'));
    seekingBox.hidden = false;
    try {
      const token = await session.accessToken();
      const joined = await rooms.joinOrCreate('seek_pool', {
        time_control: categoryOf(o.initial, o.increment),
        initial_time: o.initial,
        increment: o.increment,
        rated: o.rated,
        color: o.color,
        token,
      });
      if (ctx.signal.aborted || seekingBox.hidden) return void joined.leave();
      pool = joined;
      joined.onMessage('seeking', () => {});
      joined.onMessage('error', (e: { code: string; message: string }) => seekErrorAt.show(plainError(new ApiError(0, e.code, e.message))));
      joined.onMessage('paired', (m: { game_id: string }) => {
        pool = undefined;
        void joined.leave();
        ctx.go(`/play/${m.game_id}`);
      });
      joined.onLeave(() => {
        if (pool === joined) stopSeeking();
      });
    } catch (error) {
      seekingBox.hidden = true;
      const code = joinErrorCode(error);
      errorAt.show(code === 'PLAYER_BUSY' ? 'You are already playing or seeking a game. Finish or cancel it first.' : plainError(code ? new ApiError(0, code, error instanceof Error ? error.message : String(error)) : error));
    }
  };

  // ---- the page ------------------------------------------------------------------------------
  const rated = h('input', { type: 'checkbox', id: 'seek-rated', checked: true });
  const quick = h('div', { class: 'quick', role: 'group', 'aria-label': 'Quick pairing' },
    QUICK_PAIRINGS.map(([min, inc]) =>
      h('button', { type: 'button', 'data-tc': `${min}+${inc}`, onclick: () => void seek({ initial: min * 60, increment: inc, rated: rated.checked, color: 'random' }) },
        h('strong', null, `${min}+${inc}`), h('small', null, categoryOf(min * 60, inc)))));

  // The computer (DESIGN 2.14): a level is one click, at the clock and colour chosen beside it.
  const computerError = fieldError();
  const computerClock = h('select', { id: 'computer-clock', 'aria-label': 'Time control' },
    QUICK_PAIRINGS.map(([min, inc]) => h('option', { value: `${min}+${inc}`, selected: min === 5 && inc === 3 }, `${min}+${inc} ${categoryOf(min * 60, inc)}`)));
  const computerColor = h('select', { id: 'computer-color', 'aria-label': 'Your colour' },
    (['random', 'white', 'black'] as const).map((c) => h('option', { value: c }, c === 'random' ? 'Random colour' : `As ${c}`)));
  const playComputer = async (level: number) => {
    computerError.clear();
    const [min, inc] = computerClock.value.split('+').map(Number);
    try {
      const game = await post<GameSummary>('/games', { type: 'computer', level, time_control: categoryOf(min * 60, inc), initial_time: min * 60, increment: inc, color: computerColor.value });
      ctx.go(`/play/${game.id}`);
    } catch (e) {
      computerError.show(e instanceof ApiError && e.code === 'PLAYER_BUSY' ? 'You already have as many games against the computer as you may. Finish one first.' : plainError(e));
    }
  };
  const computer = h('div', { class: 'quick computer', role: 'group', 'aria-label': 'Computer level' },
    [1, 2, 3, 4, 5, 6, 7, 8].map((level) => h('button', { type: 'button', 'data-level': String(level), onclick: () => void playComputer(level) }, h('strong', null, `Level ${level}`))));

  const custom = timeForm('seek', 'Seek', (o) => void seek(o, customError), customError.el);
  const challengeForm = timeForm('challenge', 'Challenge', async (o, username) => {
    challengeError.clear();
    try {
      if (username?.trim().toLowerCase() === me?.username.toLowerCase()) return challengeError.show('You cannot challenge yourself. Pick another player.');
      const opponent = await findUser(username ?? '');
      if (!opponent) return challengeError.show(`There is no player called “${username}”. Check the spelling.`);
      const clock = o.days
        ? { time_control: 'correspondence', days_per_move: o.days }
        : { time_control: categoryOf(o.initial, o.increment), initial_time: o.initial, increment: o.increment };
      const pending = await post<PendingGame>('/games', { type: 'challenge', opponent_id: opponent.id, ...clock, rated: o.rated, color: o.color });
      ctx.go(`/play/${pending.id}`);
    } catch (e) {
      challengeError.show(plainError(e));
    }
  }, challengeError.el, ctx.query.get('challenge') ?? '');

  const current = h('ul', { class: 'current-games' });
  // Correspondence games waiting for this player's move (the others wait days, not seconds);
  // shown only when there are some (no card appears, nothing moves, for those without).
  const myTurn = h('ul', { class: 'my-turn' });
  const myTurnCard = h('section', { class: 'card', 'aria-labelledby': 'turn-h', hidden: true }, h('h2', { id: 'turn-h' }, 'Your turn: correspondence'), myTurn);

  fill(
    ctx.root,
    h('h1', null, me ? 'Play' : 'Play chess in your browser'),
    me ? null : h('p', { class: 'lead' }, h('a', { href: '/signup', class: 'button primary' }, 'Sign up'), ' or ', h('a', { href: '/login', class: 'button' }, 'log in'), ' to play. Anyone may watch.'),
    message,
    me ? h('section', { class: 'card', 'aria-labelledby': 'quick-h' }, h('h2', { id: 'quick-h' }, 'Quick pairing'), quick,
      h('label', { class: 'inline' }, rated, ' Rated'), seekError.el, seekingBox) : null,
    me ? h('section', { class: 'card', 'aria-labelledby': 'computer-h' }, h('h2', { id: 'computer-h' }, 'Play the computer'),
      h('p', { class: 'inline' }, computerClock, ' ', computerColor), computer, computerError.el) : null,
    me ? h('section', { class: 'card', 'aria-labelledby': 'ch-h' }, h('h2', { id: 'ch-h' }, 'Challenges'), challengesBox) : null,
    me ? myTurnCard : null,
    me ? h('section', { class: 'card', 'aria-labelledby': 'cur-h' }, h('h2', { id: 'cur-h' }, 'Your games in progress'), current) : null,
    h('section', { class: 'card', 'aria-labelledby': 'seeks-h' },
      h('h2', { id: 'seeks-h' }, 'Open seeks'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'seeks' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Mode'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')))),
        seeksBody))),
    me ? h('section', { class: 'card', 'aria-labelledby': 'custom-h' }, h('h2', { id: 'custom-h' }, 'Custom seek'), custom) : null,
    me ? h('section', { class: 'card', 'aria-labelledby': 'chal-h' }, h('h2', { id: 'chal-h' }, 'Challenge a player'), challengeForm) : null,
  );

  // Come from a profile's Challenge button: the form is where the person looks.
  if (ctx.query.get('challenge')) challengeForm.scrollIntoView?.({ block: 'center' });

  const drawSeeks = () => {
    const seeks = lobbyFeed.seeks;
    if (!seeks.length) return fill(seeksBody, h('tr', null, h('td', { colspan: 5, class: 'empty' }, 'Nobody is seeking right now.')));
    fill(seeksBody, seeks.map((s: Seek) =>
      h('tr', null,
        h('td', null, userLink(s.username)), h('td', null, String(s.rating)),
        h('td', null, formatTimeControl(s.initialTime, s.increment)), h('td', null, `${s.rated ? 'rated' : 'casual'} ${s.timeControl}`),
        h('td', null, me && s.userId !== me.id
          ? h('button', { type: 'button', onclick: () => void seek({ initial: s.initialTime, increment: s.increment, rated: s.rated, color: 'random' }) }, 'Play')
          : null))));
  };

  const drawChallenges = () => {
    if (!me) return;
    const list = lobbyFeed.challenges;
    if (!list.length) return fill(challengesBox, h('p', { class: 'empty' }, 'No challenges.'));
    fill(challengesBox, h('ul', null, list.map((c: Challenge) => {
      const what = describeKind(c);
      const act = (path: string) => async () => {
        try {
          await post(`/games/${c.id}/${path}`);
          if (path === 'accept') ctx.go(`/play/${c.id}`);
        } catch (e) {
          say(plainError(e), true);
        }
      };
      return c.direction === 'incoming'
        ? h('li', { class: 'challenge incoming' }, userLink(c.from.username), ` challenges you (${what}) `,
          h('button', { type: 'button', class: 'primary', onclick: act('accept') }, 'Accept'), ' ',
          h('button', { type: 'button', onclick: act('decline') }, 'Decline'))
        : h('li', { class: 'challenge outgoing' }, 'You challenged ', userLink(c.to.username), ` (${what}) `,
          h('a', { href: `/play/${c.id}` }, 'Open'), ' ', h('button', { type: 'button', onclick: act('cancel') }, 'Cancel'));
    })));
  };

  const draw = () => {
    drawSeeks();
    drawChallenges();
  };
  ctx.cleanup(lobbyFeed.subscribe(draw));
  draw();

  if (me) {
    const versus = (g: GameSummary) => `${g.white_player?.username ?? '?'} vs ${g.black_player?.username ?? '?'}`;
    const [active, waiting] = await Promise.all([
      get<GameSummary[]>(`/games?status=active&player_id=${me.id}&limit=20`).catch(() => []),
      get<GameSummary[]>('/games?my_turn=true&time_control=correspondence&sort=updated_at&order=asc&limit=20').catch(() => []),
    ]);
    if (!active.length) fill(current, h('li', { class: 'empty' }, 'None.'));
    else fill(current, active.map((g) => h('li', null, h('a', { href: `/play/${g.id}` }, versus(g)), ` · ${describeKind(g)}`)));
    myTurnCard.hidden = !waiting.length;
    fill(myTurn, waiting.map((g) => h('li', null, h('a', { href: `/play/${g.id}` }, versus(g)), ` · ${describeKind(g)} · `, movesLeft(g, me.id))));
  }
}

/** "2 days 4 h left", "5 h left": the time the player has for this move. */
function movesLeft(g: GameSummary, myId: string): string {
  const seconds = g.white_player?.id === myId ? g.white_time_remaining : g.black_time_remaining;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  return days ? `${days} day${days === 1 ? '' : 's'} ${hours} h left` : hours ? `${hours} h left` : `${Math.max(1, Math.floor(seconds / 60))} min left`;
}

/**
 * Minutes, increment, rated, colour (and a username for a challenge), with the category shown
 * live; a challenge may be correspondence instead (days per move, no clock fields).
 */
function timeForm(prefix: string, submitLabel: string, onSubmit: (o: SeekOptions, username?: string) => void, error: HTMLElement, username = ''): HTMLFormElement {
  const id = (name: string) => `${prefix}-${name}`;
  const time = timeControlFields(prefix);
  const kind = prefix === 'challenge'
    ? h('select', { id: id('kind'), name: 'kind' }, h('option', { value: 'clock' }, 'Clock'), h('option', { value: 'correspondence' }, 'Correspondence (days per move)'))
    : null;
  const days = h('select', { id: id('days'), name: 'days' }, DAYS_PER_MOVE.map((d) => h('option', { value: d, selected: d === 3 }, `${d} day${d === 1 ? '' : 's'}`)));
  const daysLine = h('p', { hidden: true }, h('label', { for: id('days') }, 'Days per move'), days);
  kind?.addEventListener('change', () => {
    const correspondence = kind.value === 'correspondence';
    daysLine.hidden = !correspondence;
    for (const node of time.nodes) node.hidden = correspondence;
    for (const input of time.nodes.flatMap((n) => [...n.querySelectorAll('input')])) input.disabled = correspondence;
  });
  const rated = h('input', { id: id('rated'), name: 'rated', type: 'checkbox', checked: true });
  const color = h('select', { id: id('color'), name: 'color' }, h('option', { value: 'random' }, 'Random'), h('option', { value: 'white' }, 'White'), h('option', { value: 'black' }, 'Black'));
  const user = prefix === 'challenge' ? h('input', { id: id('username'), name: 'username', required: true, autocomplete: 'off', value: username, maxlength: 20 }) : null;
  return h('form', {
    class: 'time-form',
    onsubmit: (event: Event) => {
      event.preventDefault();
      const { initial, increment } = time.read();
      const perMove = kind?.value === 'correspondence' ? Number(days.value) : undefined;
      onSubmit({ initial, increment, rated: rated.checked, color: color.value as SeekOptions['color'], days: perMove }, user?.value);
    },
  },
  user ? h('p', null, h('label', { for: id('username') }, 'Username'), user) : null,
  kind ? h('p', null, h('label', { for: id('kind') }, 'Time'), kind) : null,
  time.nodes,
  daysLine,
  h('p', null, h('label', { for: id('color') }, 'Colour'), color),
  h('p', null, h('label', { class: 'inline' }, rated, ' Rated')),
  h('button', { type: 'submit', class: 'primary' }, submitLabel),
  error);
}
