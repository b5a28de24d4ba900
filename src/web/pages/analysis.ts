// The post-game analysis: accuracy, mistakes and blunders per side, the opening, the evaluation
// graph (click a point, or use the arrow keys, to see that position), and every move with its
// class and the engine's choice. While the analysis is made (202) the page shows its progress.

import { Chess } from 'chess.js';
import { ApiError, request } from '../api.ts';
import { fill, h, svg } from '../dom.ts';
import { Board } from '../play/board.ts';
import type { PageContext } from '../router.ts';
import type { AnalysedMove, Analysis, AnalysisPending } from '../types/api.ts';

type Ply = { san: string; fen: string; from: string; to: string; move: AnalysedMove; color: 'white' | 'black'; number: number };

const CAP = 10; // the graph shows ±10 pawns; a forced mate (±100) sits at the edge

export async function analysisPage(ctx: PageContext): Promise<void> {
  const id = ctx.params.id;
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  fill(ctx.root, h('h1', null, 'Analysis'), status);
  let analysis: Analysis | undefined;
  while (!ctx.signal.aborted) {
    try {
      const res = await request<Analysis | AnalysisPending>('GET', `/games/${id}/analysis`);
      if (!('progress' in res.data)) {
        analysis = res.data;
        break;
      }
      const p = res.data.progress;
      status.textContent = `The engine is analysing this game: ${p.done} of ${p.total} positions…`;
      const wait = Math.min(10, Math.max(1, Number(res.headers.get('retry-after')) || 2));
      await new Promise((r) => setTimeout(r, wait * 1000));
    } catch (e) {
      if (e instanceof ApiError && e.code === 'GAME_NOT_FINISHED') return void (status.textContent = 'The game is not finished (or was aborted): there is nothing to analyse yet.');
      if (e instanceof ApiError && e.status === 404) return void (status.textContent = 'No game at this address.');
      throw e;
    }
  }
  if (!analysis) return;
  status.textContent = '';
  const plies = replay(analysis);
  const boardBox = h('div', { class: 'board-box small', role: 'region', 'aria-label': 'Position' });
  const caption = h('p', { class: 'caption', 'aria-live': 'polite' });
  const graph = evaluationGraph(plies, (i) => show(i));
  const rows = h('tbody');
  const board = new Board(boardBox, { orientation: 'white', fen: new Chess().fen(), onMove: () => {} });
  ctx.cleanup(() => board.destroy());

  const show = (i: number) => {
    const p = plies[i];
    if (!p) return;
    board.set(p.fen, { from: p.from, to: p.to }, undefined);
    caption.textContent = `${p.number}${p.color === 'white' ? '.' : '…'} ${p.san}: ${formatEval(p.move)}, ${p.move.classification}${p.move.best_move && p.move.classification !== 'best' ? ` (best was ${p.move.best_move})` : ''}`;
    graph.select(i);
    rows.querySelectorAll('.current').forEach((el) => el.classList.remove('current'));
    rows.querySelector(`[data-ply="${i}"]`)?.classList.add('current');
  };

  const a = analysis;
  const pct = (v: number | null) => (v === null ? '–' : `${v.toFixed(1)} %`);
  fill(
    ctx.root,
    h('h1', null, 'Analysis'),
    h('p', { class: 'info' }, `${a.engine}, depth ${a.depth}`, a.opening ? ` · ${a.opening.eco} ${a.opening.name}` : ''),
    h('table', { class: 'summary' },
      h('thead', null, h('tr', null, h('th', null, ''), h('th', { scope: 'col' }, 'White'), h('th', { scope: 'col' }, 'Black'))),
      h('tbody', null,
        h('tr', null, h('th', { scope: 'row' }, 'Accuracy'), h('td', null, pct(a.accuracy.white)), h('td', null, pct(a.accuracy.black))),
        h('tr', null, h('th', { scope: 'row' }, 'Mistakes'), h('td', null, String(a.mistakes.white)), h('td', null, String(a.mistakes.black))),
        h('tr', null, h('th', { scope: 'row' }, 'Blunders'), h('td', null, String(a.blunders.white)), h('td', null, String(a.blunders.black))))),
    h('div', { class: 'analysis' }, h('div', null, boardBox, caption), h('div', null, graph.el,
      h('div', { class: 'table-wrap' }, h('table', { class: 'analysed-moves' },
        h('thead', null, h('tr', null, ['Move', 'Played', 'Evaluation', 'Class', 'Best'].map((t) => h('th', { scope: 'col' }, t)))),
        rows)))),
  );
  fill(rows, plies.map((p, i) =>
    h('tr', { 'data-ply': i, class: `cls-${p.move.classification}` },
      h('td', null, `${p.number}${p.color === 'white' ? '.' : '…'}`),
      h('td', null, h('button', { type: 'button', class: 'link', onclick: () => show(i) }, p.san)),
      h('td', null, formatEval(p.move)),
      h('td', null, p.move.classification),
      h('td', null, p.move.best_move ?? ''))));
  if (plies.length) show(plies.length - 1);
}

function replay(a: Analysis): Ply[] {
  const chess = new Chess();
  const plies: Ply[] = [];
  for (const row of a.moves) {
    for (const color of ['white', 'black'] as const) {
      const move = row[color];
      if (!move) continue;
      const played = chess.move(move.san);
      plies.push({ san: move.san, fen: chess.fen(), from: played.from, to: played.to, move, color, number: row.move_number });
    }
  }
  return plies;
}

const formatEval = (m: AnalysedMove) =>
  m.mate !== null ? (m.mate === 0 ? 'mate' : `mate in ${Math.abs(m.mate)} for ${m.mate > 0 ? 'White' : 'Black'}`) : `${m.evaluation > 0 ? '+' : ''}${m.evaluation.toFixed(2)}`;

/** White's advantage move by move, as an SVG area chart; clickable and keyboard-navigable. */
function evaluationGraph(plies: Ply[], onSelect: (i: number) => void): { el: Element; select: (i: number) => void } {
  const W = 600;
  const H = 160;
  const x = (i: number) => (plies.length <= 1 ? W / 2 : (i / (plies.length - 1)) * W);
  const y = (e: number) => H / 2 - (Math.max(-CAP, Math.min(CAP, e)) / CAP) * (H / 2 - 4);
  const points = plies.map((p, i) => `${x(i).toFixed(1)},${y(p.move.evaluation).toFixed(1)}`);
  const marker = svg('line', { class: 'graph-cursor', x1: 0, x2: 0, y1: 0, y2: H });
  const dots = plies.map((p, i) =>
    svg('circle', { class: `graph-dot cls-${p.move.classification}`, cx: x(i).toFixed(1), cy: y(p.move.evaluation).toFixed(1), r: 3 }));
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'eval-graph', role: 'slider', tabindex: 0, 'aria-label': 'Evaluation graph: arrow keys step through the moves', 'aria-valuemin': 1, 'aria-valuemax': Math.max(1, plies.length), 'aria-valuenow': plies.length },
    svg('rect', { class: 'graph-bg', x: 0, y: 0, width: W, height: H }),
    // Lichess's picture: the light area is White's share, rising above the middle while White is better.
    svg('polygon', { class: 'graph-area', points: [`0,${H}`, ...points, `${W},${H}`].join(' ') }),
    svg('line', { class: 'graph-axis', x1: 0, x2: W, y1: H / 2, y2: H / 2 }),
    marker,
    ...dots);
  let current = plies.length - 1;
  chart.addEventListener('click', (event) => {
    const box = chart.getBoundingClientRect();
    const i = Math.round((((event as MouseEvent).clientX - box.left) / box.width) * (plies.length - 1));
    onSelect(Math.max(0, Math.min(plies.length - 1, i)));
  });
  chart.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[(event as KeyboardEvent).key];
    if (step === undefined) return;
    event.preventDefault();
    onSelect(Math.max(0, Math.min(plies.length - 1, current + step)));
  });
  return {
    el: chart,
    select(i: number) {
      current = i;
      marker.setAttribute('x1', x(i).toFixed(1));
      marker.setAttribute('x2', x(i).toFixed(1));
      chart.setAttribute('aria-valuenow', String(i + 1));
      chart.setAttribute('aria-valuetext', `${plies[i].number}${plies[i].color === 'white' ? '.' : '…'} ${plies[i].san}, ${formatEval(plies[i].move)}`);
    },
  };
}
