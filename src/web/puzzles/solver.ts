// A puzzle on the board, judged move by move as on Lichess: each move of the solver's goes to the
// API at once (POST /puzzles/{id}/step); while it is the solution's the page says so and plays the
// reply it is answered with, and the move that ends the run brings the verdict, the rating change
// and the solution, played on from where the run ended (then stepped with ◀ ▶).

import { ApiError, get, post } from '../api.ts';
import { fill, h, setText } from '../dom.ts';
import { Board, type BoardMove } from '../play/board.ts';
import { typedMoveForm } from '../play/layout.ts';
import { parseTypedMove } from '../play/typedMove.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import type { Color, Puzzle, PuzzleStep, PuzzleStepEnd, User } from '../types/api.ts';
import { moveNumber, PuzzleRun, replay, themeLabel, type Ply } from './line.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;
/** `waiting`: a move of the solver's is with the API, or its reply is being drawn. */
type Phase = 'readonly' | 'solving' | 'waiting' | 'done';
type Tone = 'plain' | 'good' | 'error';

const PIECES: Record<string, string> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const REPLAY_STEP_MS = 700;
/** The solver sees their move on the board a moment before the reply comes, as on Lichess. */
const REPLY_AFTER_MS = 300;
const MAX_TIME_MS = 86_400_000;

const capital = (c: Color) => (c === 'white' ? 'White' : 'Black');
const opposite = (c: Color): Color => (c === 'white' ? 'black' : 'white');
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0');
const whiteMoved = (ply: Ply) => ply.fen.split(' ')[1] === 'b';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

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
  const setup = { from: p.last_move.slice(0, 2), to: p.last_move.slice(2, 4) };
  const opponent = opposite(p.color);

  let phase: Phase = me ? 'solving' : 'readonly';
  let run = new PuzzleRun(p.fen, p.color);
  let runStarted = Date.now();
  let solution: Ply[] = [];
  let shown = -1; // the solution's ply on the board after the end (−1: the puzzle's position)
  let replayTimer: ReturnType<typeof setInterval> | undefined;

  const boardBox = h('div', { class: 'board-box', role: 'region', 'aria-label': 'Puzzle board' });
  const prompt = h('p', { class: 'prompt', role: 'status', 'aria-live': 'polite' });
  const lineList = h('ol', { class: 'line', 'aria-label': 'Your moves and the replies' });
  const { form: typed, input: typedInput } = typedMoveForm();
  const verdict = h('div', { class: 'verdict', hidden: true });
  const solutionList = h('ol', { class: 'solution', 'aria-label': 'Solution' });
  const back = h('button', { type: 'button', 'aria-label': 'Previous move of the solution' }, '◀');
  const forward = h('button', { type: 'button', 'aria-label': 'Next move of the solution' }, '▶');
  const solutionBox = h('div', { class: 'solution-box', hidden: true }, h('h2', null, 'Solution'), solutionList, h('p', { class: 'actions' }, back, forward));
  const tryAgain = h('button', { type: 'button', hidden: true }, 'Try again');
  const next = me ? h('button', { type: 'button', class: 'primary next', hidden: true }, 'Next puzzle') : null;
  const ratingLine = h('p', { class: 'puzzle-rating' });
  // The prompt first: on a phone the side stands under the board, and the prompt must be in the
  // window with the whole board (the notes on the setup come after it).
  const side = h('div', { class: 'play-side' },
    prompt,
    h('p', { class: 'setup' }, `${capital(opponent)} played ${pieceOn(p.fen, setup.to)} ${setup.from}–${setup.to} (highlighted). You play ${p.color}.`),
    lineList, typed, verdict, solutionBox,
    h('p', { class: 'actions' }, tryAgain, next,
      me ? null : [h('a', { class: 'button primary', href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in'), h('a', { class: 'button', href: `/signup?next=${encodeURIComponent(location.pathname)}` }, 'Sign up')]),
    ratingLine,
    me ? h('p', { class: 'hint' }, `Each of your moves is judged at once, and ${capital(opponent)}’s replies are played for you. Only your first try at a puzzle is rated.`) : null);
  const info = [`Rated ${p.rating}`, ...p.themes.map(themeLabel)].join(' · ');
  const el = h('div', { class: 'play puzzle' },
    h('div', { class: 'play-head' }, h('h1', null, o.title), h('p', { class: 'info' }, o.subtitle ? `${o.subtitle} · ` : '', info)),
    h('div', { class: 'play-board' }, boardBox),
    side);

  // A move made on the board is taken once the board has finished making it.
  const board = new Board(boardBox, { orientation: p.color, fen: p.fen, onMove: (m) => void board.settled().then(() => onMove(m)) });
  ctx.cleanup(() => {
    clearInterval(replayTimer);
    board.destroy();
  });

  const say = (text: string, tone: Tone = 'plain') => {
    prompt.classList.toggle('error', tone === 'error');
    prompt.classList.toggle('good', tone === 'good');
    setText(prompt, text);
  };
  const findIt = () => `${capital(p.color)} to move: find the best move.`;

  /** The board and the side as the phase and the run say; the board is the run's until the end. */
  const draw = () => {
    const input = phase === 'solving' ? p.color : undefined;
    if (phase !== 'done') board.set(run.position, run.plies.at(-1) ?? setup, input);
    el.dataset.plies = String(run.plies.length);
    el.dataset.input = input ? 'solver' : 'none';
    el.dataset.phase = phase;
    boardBox.setAttribute('aria-label', `Puzzle board, you play ${p.color}${input ? `; ${input} to move` : ''}`);
    // "34. Qa8+ Qb8 35. Qxb8#": a number before White's moves, and before the first.
    fill(lineList, run.plies.map((ply, i) =>
      h('li', { class: ply.solver ? 'mine' : 'reply' }, i === 0 || whiteMoved(ply) ? `${moveNumber(p.fen, i)} ` : '', ply.san)));
    lineList.hidden = run.plies.length === 0 || phase === 'done';
    // After the end the prompt only speaks (the verdict shows the same).
    prompt.classList.toggle('visually-hidden', phase === 'done');
    typed.hidden = phase === 'readonly' || phase === 'done';
  };

  // ---- a move, judged at once ---------------------------------------------------------------

  const onMove = async (move: BoardMove) => {
    if (phase !== 'solving' || ctx.signal.aborted) return;
    const ply = run.play(move);
    if (!ply) {
      board.reset();
      return say('That move is not legal here.', 'error');
    }
    phase = 'waiting';
    draw();
    const movedAt = Date.now();
    let answer: PuzzleStep;
    try {
      answer = await post<PuzzleStep>(`/puzzles/${encodeURIComponent(p.id)}/step`, {
        moves: run.solverMoves(),
        time_ms: Math.min(MAX_TIME_MS, Date.now() - runStarted),
      });
    } catch (e) {
      if (ctx.signal.aborted) return;
      // Not judged and nothing recorded: the move is taken back, to be played again.
      run.takeBack();
      phase = 'solving';
      draw();
      return say(e instanceof ApiError ? e.lines().join(' ') : String(e), 'error');
    }
    if (ctx.signal.aborted) return;
    if (answer.status !== 'continue') return showEnd(answer);
    say('Best move! Keep going…', 'good');
    await pause(REPLY_AFTER_MS - (Date.now() - movedAt));
    if (ctx.signal.aborted) return;
    const reply = run.answer(answer.reply);
    if (!reply) {
      phase = 'solving';
      draw();
      return say(`The puzzle’s reply ${answer.reply} cannot be played here. Reload the page to try again.`, 'error');
    }
    // The reply is drawn (animated) before the solver may move again, so no click lands on a
    // board that is still moving a piece.
    draw();
    await board.settled();
    if (ctx.signal.aborted) return;
    phase = 'solving';
    draw();
    say(`Best move! ${capital(opponent)} answers ${reply.san}. Your move.`, 'good');
  };

  typed.addEventListener('submit', (event) => {
    event.preventDefault();
    if (phase !== 'solving') return;
    const parsed = parseTypedMove(run.position, typedInput.value);
    if (!parsed.ok) return say(parsed.error, 'error');
    typedInput.value = '';
    void onMove(parsed.move);
  });

  // ---- the end of a run ---------------------------------------------------------------------

  const showEnd = (a: PuzzleStepEnd) => {
    phase = 'done';
    const mine = run.plies;
    const last = mine.length - 1;
    solution = replay(p.fen, a.solution, p.color);
    const offSolution = mine[last].uci !== a.solution[last];
    const headline = a.correct ? 'Solved!' : 'That’s not it.';
    const why = a.correct
      ? offSolution ? 'Your move mates as well: any mate solves a puzzle.' : ''
      : `You played ${mine[last].san}; the solution plays ${solution[last]?.san ?? a.solution[last]}.`;
    fill(verdict,
      h('p', { class: `result ${a.correct ? 'solved' : 'failed'}` }, h('strong', null, headline), ' ', why),
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
    board.disable();
    draw();
    if (a.correct) {
      say(`${headline} ${why}`, 'good');
      // The board keeps the solver's last move: the solution's, or another mate beside it.
      return offSolution ? markShown(last - 1) : markShown(last);
    }
    say(`${headline} ${why} The solution is played on the board.`, 'error');
    // The wrong move is taken back, then the solution plays on from there.
    const queue = Array.from({ length: solution.length - last + 1 }, (_, k) => last - 1 + k);
    replayTimer = setInterval(() => {
      const i = queue.shift();
      if (i === undefined) clearInterval(replayTimer);
      else showPly(i);
    }, REPLAY_STEP_MS);
  };

  /** Which ply of the solution the board and the list show (the list marks none for another mate). */
  const markShown = (i: number) => {
    shown = Math.max(-1, Math.min(solution.length - 1, i));
    solutionList.querySelectorAll('button').forEach((b, k) => b.toggleAttribute('aria-current', k === shown));
    back.disabled = shown < 0;
    forward.disabled = shown >= solution.length - 1;
    el.dataset.shown = String(shown);
  };

  const showPly = (i: number, byHand = false) => {
    if (byHand) clearInterval(replayTimer);
    markShown(i);
    const ply = solution[shown];
    board.set(ply?.fen ?? p.fen, ply ?? setup, undefined);
  };
  back.addEventListener('click', () => showPly(shown - 1, true));
  forward.addEventListener('click', () => showPly(shown + 1, true));

  tryAgain.addEventListener('click', () => {
    clearInterval(replayTimer);
    run = new PuzzleRun(p.fen, p.color);
    runStarted = Date.now();
    phase = 'solving';
    verdict.hidden = true;
    solutionBox.hidden = true;
    tryAgain.hidden = true;
    delete el.dataset.shown;
    draw();
    say(`Try again, not rated this time. ${findIt()}`);
  });

  next?.addEventListener('click', async () => {
    try {
      const puzzle = await get<Puzzle>('/puzzles/next');
      ctx.go(`/puzzles/${encodeURIComponent(puzzle.id)}`);
    } catch (e) {
      say(e instanceof ApiError && e.code === 'PUZZLE_NOT_FOUND' ? 'No puzzle is left for you: you have tried every one.' : e instanceof Error ? e.message : String(e), 'error');
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
  say(me ? findIt() : `${capital(p.color)} to move. Log in or sign up to solve this puzzle.`);
  return el;
}
