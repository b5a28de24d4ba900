import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { createDatabase } from '../support/database.ts';
import { postData, requestJson, startGameOverApi, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';

/** 40 plies of a quiet Italian game; White resigns after them. */
const LINE = [
  'e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d3', 'd7d6', 'e1g1', 'e8g8', 'a2a4', 'a7a5',
  'f1e1', 'h7h6', 'b1d2', 'c8e6', 'c4e6', 'f7e6', 'd2f1', 'd8e8', 'f1g3', 'e8g6', 'h2h3', 'a8d8', 'd1e2', 'd8d7',
  'c1e3', 'c5e3', 'f2e3', 'f8f7', 'a1d1', 'd7e7', 'd3d4', 'e5d4', 'c3d4', 'f6h5', 'g3h5', 'g6h5',
];
const ANALYSIS_KEYS = ['accuracy', 'analyzed_at', 'blunders', 'depth', 'engine', 'game_id', 'mistakes', 'moves', 'opening'];
const MOVE_KEYS = ['best_move', 'classification', 'evaluation', 'mate', 'san'];

/** Processes whose parent is `pid`: the engines a service process started. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid && state !== 'Z') out.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return out;
}

/** A process that still runs (a zombie waiting to be reaped has finished). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}


/**
 * Analysis as `npm start` runs it, with the npm package's Stockfish: every finished game is
 * analysed without anyone asking (202 with growing progress, then 200); a job whose process is
 * killed is taken again by the next process; SIGTERM gives the job back and leaves no engine.
 */
describe('analysis in the service process', function () {
  this.timeout(120_000);
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Pool;
  const env = {
    ANALYSIS_WORKERS: '1',
    ANALYSIS_DEPTH: '12',
    ANALYSIS_LOCK_SECONDS: '2',
    FIRST_MOVE_SECONDS: '60',
    JWT_SECRET: 'analysis-process-secret-'.padEnd(48, 'x'),
    // Tokens name their issuer: one for every process, whatever its port.
    PUBLIC_URL: 'http://analysis.test',
  };
  let proc: ServiceProcess | undefined;
  let players: { w: any; b: any };

  before(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    sql = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterEach(async () => {
    proc?.child.kill('SIGKILL');
    await proc?.exited;
    proc = undefined;
  });
  after(async () => {
    await sql.end();
    await db.drop();
  });

  let games = 0;
  /** A game played through the API (the 40 plies of LINE) that White resigns. */
  async function finishedGame(base: string): Promise<string> {
    const { id, white: w, black: b } = await startGameOverApi(base, `analysis${games++}`);
    players = { w, b };
    for (const [i, uci] of LINE.entries()) {
      await postData(base, `/games/${id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, (i % 2 ? b : w).session.access_token);
    }
    await postData(base, `/games/${id}/resign`, {}, w.session.access_token);
    return id;
  }

  const read = (base: string, id: string) => requestJson(base, 'GET', `/games/${id}/analysis`, undefined, players.b.session.access_token);

  it('analyses a finished game without anyone asking: 202 with progress that only grows, then 200 with every field', async () => {
    proc = await startServiceProcess(db.url, { env });
    const base = `${proc.base}/v1`;
    const id = await finishedGame(base);
    const seen: Array<{ status: string; done: number }> = [];
    const answer = await until('the analysis', async () => {
      const res = await read(base, id);
      if (res.status === 200) return res;
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.equal(res.body.data.progress.total, LINE.length + 1);
      seen.push({ status: res.body.data.status, done: res.body.data.progress.done });
      return undefined;
    }, { ms: 90_000 }); // a loaded 2-core machine once took over 30 s
    const done = seen.map((s) => s.done);
    assert.deepEqual(done, [...done].sort((x, y) => x - y), `progress only grows: ${done.join(',')}`);
    assert.ok(seen.some((s) => s.status === 'running' && s.done > 0 && s.done <= LINE.length), `seen: ${JSON.stringify(seen)}`);

    const a = answer.body.data;
    assert.deepEqual(Object.keys(a).sort(), ANALYSIS_KEYS);
    assert.equal(a.game_id, id);
    assert.equal(a.depth, 12);
    assert.match(a.engine, /^Stockfish 19/);
    assert.match(a.analyzed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(a.moves.length, LINE.length / 2);
    for (const [i, row] of a.moves.entries()) {
      assert.equal(row.move_number, i + 1);
      for (const m of [row.white, row.black]) {
        assert.deepEqual(Object.keys(m).sort(), MOVE_KEYS);
        assert.ok(Math.abs(m.evaluation) <= 100);
        assert.ok(['best', 'excellent', 'good', 'inaccuracy', 'mistake', 'blunder'].includes(m.classification));
      }
    }
    assert.equal(a.moves[0].white.san, 'e4');
    for (const side of ['white', 'black'] as const) {
      assert.ok(a.accuracy[side] >= 0 && a.accuracy[side] <= 100);
      const counted = (c: string) => a.moves.filter((r: any) => r[side].classification === c).length;
      assert.equal(a.mistakes[side], counted('mistake'));
      assert.equal(a.blunders[side], counted('blunder'));
    }
    assert.equal(a.opening.eco.slice(0, 1), 'C', 'an Italian game is an open game (C)');
    assert.match(a.opening.name, /Italian|Giuoco/);
    // The operators see it: searches, jobs by outcome, the queue.
    const metrics = await (await fetch(`${proc.base}/metrics`)).text();
    assert.match(metrics, /^chess_analysis_search_seconds_count (\d+)$/m);
    assert.ok(Number(/^chess_analysis_search_seconds_count (\d+)$/m.exec(metrics)![1]) >= LINE.length, 'every position searched');
    assert.match(metrics, /^chess_analysis_jobs_total\{outcome="done"\} 1$/m);
    assert.match(metrics, /^chess_analysis_jobs_pending 0$/m);
  });

  it('takes a job again after its process was killed (kill -9): no engine is left behind and the analysis finishes', async () => {
    proc = await startServiceProcess(db.url, { env });
    const id = await finishedGame(`${proc.base}/v1`);
    const progress = async () => (await sql.query('SELECT progress_done FROM game_analyses WHERE game_id = $1', [id])).rows[0]?.progress_done ?? 0;
    const before = await until('some progress', async () => ((await progress()) >= 3 ? progress() : undefined));
    const engines = childrenOf(proc.child.pid!);
    assert.equal(engines.length, 1, 'one engine process');
    proc.child.kill('SIGKILL');
    await proc.exited;
    // Its stdin closed with the service: the engine quits by itself.
    await until('the orphaned engine to exit', async () => engines.every((pid) => !running(pid)), { ms: 5_000 });

    proc = await startServiceProcess(db.url, { env });
    const res = await until('the analysis by the next process', async () => {
      const r = await read(`${proc!.base}/v1`, id);
      if (r.status === 202) assert.ok(r.body.data.progress.done >= before, 'what was found before the crash is kept');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(res.body.data.moves.length, LINE.length / 2);
    const { rows } = await sql.query('SELECT attempts, status FROM game_analyses WHERE game_id = $1', [id]);
    assert.deepEqual(rows[0], { attempts: 2, status: 'done' });
  });

  it('gives the running job back on SIGTERM and exits with no engine process left', async () => {
    proc = await startServiceProcess(db.url, { env });
    const id = await finishedGame(`${proc.base}/v1`);
    await until('some progress', async () => (await sql.query('SELECT progress_done FROM game_analyses WHERE game_id = $1', [id])).rows[0]?.progress_done >= 3);
    const engines = childrenOf(proc.child.pid!);
    assert.equal(engines.length, 1);
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
    proc = undefined;
    assert.deepEqual(engines.filter(running), [], 'no engine outlives the service');
    const { rows } = await sql.query('SELECT status, locked_until, progress_done FROM game_analyses WHERE game_id = $1', [id]);
    assert.equal(rows[0].status, 'queued');
    assert.equal(rows[0].locked_until, null, 'given back at once, not left to lapse');
    assert.ok(rows[0].progress_done >= 3);
  });
});
