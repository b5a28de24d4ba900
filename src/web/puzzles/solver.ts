// A puzzle on the board: the setup move shown, the solver's line built on the board or typed
// (src/web/puzzles/line.ts says why a first attempt is a whole line), sent to the API when it
// could be final, then the verdict, the rating change and the solution replayed on the board.

import { ApiError, get, post } from '../api.ts';
import { fill, h, setText } from '../dom.ts';
import { Board, type BoardMove } from '../play/board.ts';
import { typedMoveForm } from '../play/layout.ts';
import { parseTypedMove } from '../play/typedMove.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import type { AttemptResult, Color, Puzzle, User } from '../types/api.ts';
import { moveNumber, PuzzleLine, replay, solverMoveCount, themeLabel, type Ply } from './line.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;
type Phase = 'readonly' | 'solving' | 'sending' | 'done';

const PIECES: Record<string, string> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const REPLAY_STEP_MS = 700;
const MAX_TIME_MS = 86_400_000;

const capital = (c: Color) => (c === 'white' ? 'White' : 'Black');
const opposite = (c: Color): Color => (c === 'white' ? 'black' : 'white');
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const whiteMoved = (ply: Ply) => ply.fen.split(' ')[1] === 'b';

/** The piece standing on `square` in `fen` ("queen"), to name the setup move. */
function pieceOn(fen: string, square: string): string {
  const rank = fen.split(' ')[0].split('/')[8 - Number(square[1])] ?? '';
  let file = 0;
  for (const ch of rank) {
    if (/\d/.test(ch)) file += Number(ch);
    else if (file++ === square.charCodeAt(0) - 97) return PIECES[ch.toLowerCase()] ?? 'piece';
  }
  return 'piece';
}

export function puzzleSolver(ctx: PageContext & { go: Go }, o: { puzzle: Puzzle; title: string; subtitle?: string }): HTMLElement {
  const p = o.puzzle;
  const me = session.user();
  const expected = solverMoveCount(p.themes);
  const setup = { from: p.last_move.slice(0, 2), to: p.last_move.slice(2, 4) };
  const opponent = opposite(p.color);
  const shownAt = Date.now();

  let phase: Phase = me ? 'solving' : 'readonly';
  let line = new PuzzleLine(p.fen, p.color, expected);
  let solution: Ply[] = [];
  let shown = -1; // the solution's ply on the board after a verdict (−1: the puzzle's position)
  let replayTimer: ReturnType<typeof setInterval> | undefined;

  const boardBox = h('div', { class: 'board-box', role: 'region', 'aria-label': 'Puzzle board' });
  const prompt = h('p', { class: 'prompt', role: 'status', 'aria-live': 'polite' });
  const lineList = h('ol', { class: 'line', 'aria-label': 'Your line' });
  const takeBack = h('button', { type: 'button' }, 'Take back');
  const submit = h('button', { type: 'button', class: 'primary' }, 'Submit my line');
  const controls = h('div', { class: 'controls' }, takeBack, submit);
  const { form: typed, input: typedInput } = typedMoveForm();
  const verdict = h('div', { class: 'verdict', hidden: true });
  const solutionList = h('ol', { class: 'solution', 'aria-label': 'Solution' });
  const back = h('button', { type: 'button', 'aria-label': 'Previous move of the solution' }, '◀');
  const forward = h('button', { type: 'button', 'aria-label': 'Next move of the solution' }, '▶');
  const solutionBox = h('div', { class: 'solution-box', hidden: true }, h('h2', null, 'Solution'), solutionList, h('p', { class: 'actions' }, back, forward));
  const tryAgain = h('button', { type: 'button', hidden: true }, 'Try again');
  const next = me ? h('button', { type: 'button', class: 'primary next', hidden: true }, 'Next puzzle') : null;
  const ratingLine = h('p', { class: 'puzzle-rating' });
  const side = h('div', { class: 'play-side' },
    prompt, lineList, controls, typed, verdict, solutionBox,
    h('p', { class: 'actions' }, tryAgain, next,
      me ? null : [h('a', { class: 'button primary', href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in'), h('a', { class: 'button', href: `/signup?next=${encodeURIComponent(location.pathname)}` }, 'Sign up')]),
    ratingLine);
  const info = [`Rated ${p.rating}`, ...p.themes.map(themeLabel)].join(' · ');
  const el = h('div', { class: 'play puzzle' },
    h('div', { class: 'play-head' }, h('h1', null, o.title), h('p', { class: 'info' }, o.subtitle ? `${o.subtitle} · ` : '', info)),
    h('div', { class: 'play-board' }, boardBox,
      h('p', { class: 'setup' }, `${capital(opponent)} played ${pieceOn(p.fen, setup.to)} ${setup.from}–${setup.to} (highlighted). You play ${p.color}.`),
      me ? h('p', { class: 'hint' }, 'As in a puzzle book, a line is judged whole: play your moves and the replies you expect (a reply with no alternative is played for you). Only your first try at a puzzle is rated.') : null),
    side);

  // A move made on the board is taken once the board has finished making it: the next, the reply
  // the solver expects, may follow at once.
  const board = new Board(boardBox, { orientation: p.color, fen: p.fen, onMove: (m) => void board.settled().then(() => onMove(m)) });
  ctx.cleanup(() => {
    clearInterval(replayTimer);
    board.destroy();
  });

  const say = (text: string, error = false) => {
    prompt.classList.toggle('error', error);
    setText(prompt, text);
  };

  // ---- the line -----------------------------------------------------------------------------

  const onMove = (move: BoardMove) => {
    if (phase !== 'solving' || ctx.signal.aborted) return;
    const ply = line.play(move);
    if (!ply) {
      board.reset();
      return say('That move is not legal here.', true);
    }
    const reply = line.reply();
    if (reply) line.play(reply, true);
    draw();
    if (line.readyToJudge()) void send();
  };

  const draw = () => {
    const last = line.plies.at(-1) ?? setup;
    const input = phase === 'solving' && !line.readyToJudge() ? (line.toMove === 'solver' ? p.color : opponent) : undefined;
    if (phase !== 'done') board.set(line.position, last, input);
    el.dataset.plies = String(line.plies.length);
    el.dataset.input = input ? (input === p.color ? 'solver' : 'reply') : 'none';
    el.dataset.phase = phase;
    boardBox.setAttribute('aria-label', `Puzzle board, you play ${p.color}${input ? `; ${input} to move` : ''}`);
    // "28. Qxf7+ Kxf7 29. Ng5+": a number before White's moves, and before the first.
    fill(lineList, line.plies.map((ply, i) =>
      h('li', { class: ply.solver ? 'mine' : ply.auto ? 'reply auto' : 'reply' }, i === 0 || whiteMoved(ply) ? `${moveNumber(p.fen, i)} ` : '', ply.san)));
    lineList.hidden = line.plies.length === 0 || phase === 'done';
    // After the verdict the prompt only speaks (the verdict shows the same).
    prompt.classList.toggle('visually-hidden', phase === 'done');
    const solving = phase === 'solving';
    controls.hidden = !solving && phase !== 'sending';
    typed.hidden = !solving;
    takeBack.disabled = !solving || line.plies.length === 0;
    submit.disabled = !solving || !line.canSubmit();
    if (phase === 'readonly') return say(`${capital(p.color)} to move. Log in or sign up to solve this puzzle.`);
    if (!solving) return;
    if (line.toMove === 'solver') {
      const last = line.plies.at(-1);
      const lead = line.plies.length === 0
        ? `${capital(p.color)} to move: find the best move.`
        : last?.auto ? `${capital(opponent)} answers ${last.san}${line.solution ? '' : ' (its only move)'}. Your move.` : 'Your next move.';
      const length = line.solution ? '' : expected ? ` The solution is ${plural(expected, 'move')} of yours.` : ' Play your whole line, then submit it.';
      say(lead + (line.plies.length === 0 ? length : ''));
    } else {
      say(`Now play the reply you expect from ${capital(opponent)}, then your next move. Or submit your line as it is.`);
    }
  };

  takeBack.addEventListener('click', () => {
    line.takeBack();
    draw();
  });
  submit.addEventListener('click', () => void send());
  typed.addEventListener('submit', (event) => {
    event.preventDefault();
    if (phase !== 'solving') return;
    const parsed = parseTypedMove(line.position, typedInput.value);
    if (!parsed.ok) return say(parsed.error, true);
    typedInput.value = '';
    onMove(parsed.move);
  });

  // ---- the attempt --------------------------------------------------------------------------

  const send = async () => {
    if (phase !== 'solving' || !line.canSubmit()) return;
    phase = 'sending';
    draw();
    say('Checking your line…');
    try {
      const answer = await post<AttemptResult>(`/puzzles/${encodeURIComponent(p.id)}/attempt`, {
        moves: line.solverMoves(),
        time_ms: Math.min(MAX_TIME_MS, Date.now() - shownAt),
      });
      if (!ctx.signal.aborted) showVerdict(answer);
    } catch (e) {
      if (ctx.signal.aborted) return;
      phase = 'solving';
      refused(e);
    }
  };

  /** Nothing was recorded: the line goes back to where the solver can mend it. */
  const refused = (e: unknown) => {
    const field = e instanceof ApiError && e.code === 'VALIDATION_ERROR' ? Object.keys(e.details ?? {})[0] : undefined;
    const index = /^moves\.(\d+)$/.exec(field ?? '')?.[1];
    if (index !== undefined && Number(index) > 0) {
      // A move of the solver's that is illegal after the solution's reply: the reply guessed before it is not the puzzle's.
      const solverPlies = line.plies.flatMap((ply, i) => (ply.solver ? [i] : []));
      const at = solverPlies[Number(index)];
      const guessed = line.plies[at - 1];
      line.cut(at - 1);
      draw();
      return say(`The puzzle's ${opponent} does not answer ${guessed?.san ?? 'that way'}: after it your move is not legal. Play another reply.`, true);
    }
    draw();
    say(e instanceof ApiError ? e.lines().join(' ') : String(e), true);
  };

  const showVerdict = (a: AttemptResult) => {
    phase = 'done';
    const mine = line.plies;
    solution = replay(p.fen, a.solution, p.color);
    const wrongAt = mine.findIndex((ply, i) => ply.solver && ply.uci !== a.solution[i]);
    const why = a.correct
      ? wrongAt >= 0 ? 'Your move mates as well: any mate solves a puzzle.' : ''
      : wrongAt >= 0
        ? `You played ${mine[wrongAt].san}; the solution plays ${solution[wrongAt]?.san ?? a.solution[wrongAt]}.`
        : 'Your line stops before the end of the solution.';
    fill(verdict,
      h('p', { class: `result ${a.correct ? 'solved' : 'failed'}` }, h('strong', null, a.correct ? 'Solved!' : 'Not solved.'), ' ', why),
      h('p', { class: 'rating-change' }, a.first_attempt
        ? ['Rated attempt: ', h('span', { class: a.rating_change >= 0 ? 'gain' : 'loss' }, signed(a.rating_change)), '.']
        : 'Not rated: you had tried this puzzle before.', ` The puzzle is now rated ${a.puzzle_rating}.`),
      p.game_url ? h('p', null, h('a', { href: p.game_url, target: '_blank', rel: 'noopener noreferrer' }, 'The game it comes from, on Lichess')) : null);
    verdict.hidden = false;
    showRating(a.user_rating);
    fill(solutionList, solution.map((ply, i) =>
      h('li', null, h('button', { type: 'button', class: 'link', 'data-ply': i, onclick: () => showPly(i, true) }, `${moveNumber(p.fen, i)} ${ply.san}`))));
    solutionBox.hidden = false;
    tryAgain.hidden = false;
    if (next) next.hidden = false;
    draw();
    say(`${a.correct ? 'Solved!' : 'Not solved.'} ${why} The solution is replayed on the board.`);
    // The solution is played through once from the puzzle's position; stepping stops it.
    showPly(-1);
    replayTimer = setInterval(() => (shown + 1 < solution.length ? showPly(shown + 1) : clearInterval(replayTimer)), REPLAY_STEP_MS);
  };

  const showPly = (i: number, byHand = false) => {
    if (byHand) clearInterval(replayTimer);
    shown = Math.max(-1, Math.min(solution.length - 1, i));
    const ply = solution[shown];
    board.set(ply?.fen ?? p.fen, ply ?? setup, undefined);
    solutionList.querySelectorAll('button').forEach((b, k) => b.toggleAttribute('aria-current', k === shown));
    back.disabled = shown < 0;
    forward.disabled = shown >= solution.length - 1;
    el.dataset.shown = String(shown);
  };
  back.addEventListener('click', () => showPly(shown - 1, true));
  forward.addEventListener('click', () => showPly(shown + 1, true));

  tryAgain.addEventListener('click', () => {
    clearInterval(replayTimer);
    line = new PuzzleLine(p.fen, p.color, expected, solution.map((ply) => ply.uci));
    phase = 'solving';
    verdict.hidden = true;
    solutionBox.hidden = true;
    tryAgain.hidden = true;
    draw();
    say(`Try again: ${capital(opponent)}’s replies are the solution’s now, and this attempt is not rated.`);
  });

  next?.addEventListener('click', async () => {
    try {
      const puzzle = await get<Puzzle>('/puzzles/next');
      ctx.go(`/puzzles/${encodeURIComponent(puzzle.id)}`);
    } catch (e) {
      say(e instanceof ApiError && e.code === 'PUZZLE_NOT_FOUND' ? 'No puzzle is left for you: you have tried every one.' : e instanceof Error ? e.message : String(e), true);
    }
  });

  let rated = false;
  const showRating = (rating: number) => {
    rated = true;
    setText(ratingLine, `Your puzzle rating: ${rating}`);
  };
  // Shown until an answer brings a newer one.
  if (me) void get<User>('/users/me').then((u) => rated || showRating(u.puzzle_rating), () => {});
  draw();
  return el;
}
