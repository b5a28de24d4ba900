// Arenas (DESIGN 2.10, README "Tournaments"): the running, upcoming and finished ones, a page at a
// time, and a form to create one with the lobby's time-control fields.

import { plainError, post, request } from '../api.ts';
import { fieldError, fill, formatDate, h } from '../dom.ts';
import { ServerTime } from '../play/clock.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { timeControlFields } from '../timeFields.ts';
import { flame } from '../tournaments/flame.ts';
import { describeArena, relativeTime } from '../tournaments/format.ts';
import type { Tournament, TournamentStatus, TournamentSummary } from '../types/api.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;

const SECTIONS: [TournamentStatus, string, string][] = [
  ['running', 'Running', 'No arena is running.'],
  ['upcoming', 'Upcoming', 'None is planned.'],
  ['finished', 'Finished', 'None has finished yet.'],
];
const PAGE_SIZE = 10;
/** The start choices of the form: minutes from now, or a date and time. */
const STARTS = [['0', 'Now'], ['2', 'In 2 minutes'], ['5', 'In 5 minutes'], ['15', 'In 15 minutes'], ['60', 'In an hour'], ['at', 'At a date and time…']] as const;

/** The server's time, from the `Date` header of its answers (README, "Web app"). */
const observeDate = (time: ServerTime, headers: Headers) => {
  const date = Date.parse(headers.get('date') ?? '');
  if (Number.isFinite(date)) time.observe(date);
};

export async function tournamentsPage(ctx: PageContext & { go: Go }): Promise<void> {
  const me = session.user();
  const time = new ServerTime();
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const say = (text: string, error = false) => {
    status.className = error ? 'status error' : 'status';
    status.textContent = text;
  };

  const section = (which: TournamentStatus, title: string, none: string) => {
    const list = h('ul', { class: 'arenas' });
    const pager = h('nav', { class: 'pager', 'aria-label': `Pages of ${title.toLowerCase()} arenas` });
    let page = 1;
    const load = async () => {
      const res = await request<TournamentSummary[]>('GET', `/tournaments?status=${which}&page=${page}&limit=${PAGE_SIZE}`);
      observeDate(time, res.headers);
      if (ctx.signal.aborted) return;
      const now = time.now();
      fill(list, res.data.length ? res.data.map((t) => arenaItem(t, now)) : h('li', { class: 'empty' }, none));
      const p = res.pagination;
      fill(pager,
        p?.hasPrev ? h('button', { type: 'button', onclick: () => turn(page - 1) }, '← Previous') : null,
        p && p.total_pages > 1 ? ` Page ${page} of ${p.total_pages} ` : null,
        p?.hasNext ? h('button', { type: 'button', onclick: () => turn(page + 1) }, 'Next →') : null);
    };
    const turn = (n: number) => {
      page = n;
      load().catch((e) => say(errorText(e), true));
    };
    const el = h('section', { class: `card arenas-${which}`, 'aria-labelledby': `arenas-${which}-h` }, h('h2', { id: `arenas-${which}-h` }, title), list, pager);
    return { el, load };
  };
  const sections = SECTIONS.map(([which, title, none]) => section(which, title, none));

  fill(ctx.root,
    h('h1', null, 'Tournaments'),
    h('p', { class: 'lead' }, 'Arenas: for a fixed time, every player is paired again as soon as their game ends. A win scores 2, a draw 1; after two wins in a row a player is on fire ', flame(), ' and scores double until a game that is not a win.'),
    status,
    sections.map((s) => s.el),
    me ? createForm(ctx, time, say) : h('p', null, h('a', { href: '/login?next=/tournaments' }, 'Log in'), ' to create or join an arena.'));
  await Promise.all(sections.map((s) => s.load()));
}

function arenaItem(t: TournamentSummary, now: number): HTMLElement {
  const starts = Date.parse(t.starts_at);
  const ends = Date.parse(t.ends_at);
  const when = t.status === 'upcoming' ? `starts ${formatDate(t.starts_at)} (${relativeTime(starts - now)})`
    : t.status === 'running' ? (ends > now ? `ends ${relativeTime(ends - now)}` : 'last games being played')
      : `ended ${formatDate(t.ends_at)}`;
  const players = `${t.player_count} player${t.player_count === 1 ? '' : 's'}${t.max_players ? ` of ${t.max_players}` : ''}`;
  return h('li', null,
    h('a', { href: `/tournaments/${t.id}` }, t.name),
    h('span', { class: 'muted' }, `${describeArena(t)} · ${players} · ${when}`),
    t.joined ? h('span', { class: 'badge' }, 'you are in') : null);
}

function createForm(ctx: PageContext & { go: Go }, time: ServerTime, say: (text: string, error?: boolean) => void): HTMLElement {
  const name = h('input', { id: 't-name', name: 'name', required: true, minlength: 3, maxlength: 60, autocomplete: 'off' });
  const clock = timeControlFields('t', { minutes: 3, increment: 2 });
  const rated = h('input', { id: 't-rated', name: 'rated', type: 'checkbox', checked: true });
  const start = h('select', { id: 't-start', name: 'start' }, STARTS.map(([v, label]) => h('option', { value: v, selected: v === '5' }, label)));
  const at = h('input', { id: 't-starts-at', name: 'starts_at', type: 'datetime-local', 'aria-describedby': 't-starts-at-help' });
  const atBox = h('p', { hidden: true }, h('label', { for: 't-starts-at' }, 'Starts at'), at, h('small', { id: 't-starts-at-help' }, 'Your local time.'));
  const duration = h('input', { id: 't-duration', name: 'duration_minutes', type: 'number', min: 1, max: 360, step: 1, value: 30, required: true });
  const max = h('input', { id: 't-max', name: 'max_players', type: 'number', min: 2, max: 10000, step: 1, placeholder: 'no limit' });
  start.addEventListener('change', () => {
    atBox.hidden = start.value !== 'at';
    at.required = start.value === 'at';
  });

  const createError = fieldError();
  const form = h('form', { class: 'time-form arena-form' },
    h('p', { class: 'wide' }, h('label', { for: 't-name' }, 'Name'), name),
    clock.nodes,
    h('p', null, h('label', { for: 't-start' }, 'Start'), start),
    atBox,
    h('p', null, h('label', { for: 't-duration' }, 'Duration (minutes)'), duration),
    h('p', null, h('label', { for: 't-max' }, 'Most players'), max),
    h('p', null, h('label', { class: 'inline' }, rated, ' Rated')),
    h('button', { type: 'submit', class: 'primary' }, 'Create the arena'), createError.el);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { initial, increment, category } = clock.read();
    // Minutes from now are counted on the server's clock (a browser's may be off); a date typed
    // in is the reader's local time.
    const startsAt = start.value === 'at' ? new Date(at.value) : new Date(time.now() + Number(start.value) * 60_000);
    createError.clear();
    if (Number.isNaN(startsAt.getTime())) return createError.show('Choose the date and time the arena starts.');
    try {
      const t = await post<Tournament>('/tournaments', {
        name: name.value,
        time_control: category,
        initial_time: initial,
        increment,
        rated: rated.checked,
        starts_at: startsAt.toISOString(),
        duration_minutes: Number(duration.value),
        max_players: max.value.trim() ? Number(max.value) : null,
      });
      ctx.go(`/tournaments/${t.id}`);
    } catch (e) {
      createError.show(errorText(e));
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'create-arena-h' }, h('h2', { id: 'create-arena-h' }, 'Create an arena'), form);
}

const errorText = plainError;
