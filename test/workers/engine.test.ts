import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineCommand, parseSearch, UciEngine } from '../../src/workers/engine.ts';
import { assertIdlePriority } from '../helpers/scheduling.ts';

const SILENT_ENGINE = path.resolve(import.meta.dirname, '../fixtures/engines/silent.mjs');

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

describe('UCI engine process', function () {
  this.timeout(20_000);

  it('reads the last exact score and the best move of a search, skipping bound scores', () => {
    const info = 'info depth 14 seldepth 20 multipv 1 score cp -31 nodes 1 nps 1 time 1 pv e7e5 g1f3';
    assert.deepEqual(parseSearch(info, 'bestmove e7e5 ponder g1f3'), { score: { cp: -31 }, bestMove: 'e7e5', depth: 14, nodes: 1 });
    assert.deepEqual(parseSearch('info depth 3 score mate -2 pv a2a3', 'bestmove a2a3'), { score: { mate: -2 }, bestMove: 'a2a3', depth: 3, nodes: 0 });
    assert.deepEqual(parseSearch('info depth 0 score mate 0', 'bestmove (none)'), { score: { mate: 0 }, bestMove: null, depth: 0, nodes: 0 });
  });

  it('starts Stockfish from the npm package, names it from "id name", and finds a mate in one', async () => {
    const engine = await UciEngine.start(engineCommand());
    try {
      assert.match(engine.name, /^Stockfish 19 Lite/);
      await engine.newGame();
      const r = await engine.search(START, ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6'], 8);
      assert.deepEqual([r.score, r.bestMove], [{ mate: 1 }, 'h5f7']);
      assert.equal(r.depth, 8);
    } finally {
      await engine.quit();
    }
    assert.equal(engine.alive, false);
  });

  it('starts an idle engine at the priority it was born with, and puts it on idle CPU once ready for its searches', async () => {
    // Started idle, the WASM build's start took 57 s on a busy machine: past the answer timeout,
    // the engine was killed and started again without end. The stand-in writes how it was
    // scheduled when it answered `isready`.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-start-'));
    const log = path.join(dir, 'commands.log');
    const engine = await UciEngine.start({ command: SILENT_ENGINE, args: [log] }, { idle: true });
    try {
      const [, policy, nice] = /^sched (\d+) (-?\d+)$/m.exec(readFileSync(log, 'utf8'))!;
      assert.deepEqual([Number(policy), Number(nice)], [0, os.getPriority()], 'SCHED_OTHER at the service\'s niceness while it starts');
      assertIdlePriority(engine.pid!);
    } finally {
      await engine.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports an engine that cannot start as a failure, not a crash', async () => {
    await assert.rejects(UciEngine.start({ command: '/nonexistent/stockfish', args: [] }), /could not start|exited/);
  });

  it('rejects the search in progress when the engine dies', async () => {
    const engine = await UciEngine.start(engineCommand());
    const search = engine.search(START, [], 40);
    setTimeout(() => process.kill(engine.pid!, 'SIGKILL'), 100);
    await assert.rejects(search, (e: Error & { kind?: string }) => e.kind === 'died');
  });
});
