import assert from 'node:assert/strict';
import { as, createActiveGame, getGame, playLine } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { createUser } from '../helpers/users.ts';
import type { StreamMessage } from '../../src/realtime/messages.ts';
import { WsClient, type WsMessage } from '../helpers/ws.ts';

const stream = (id: string, query = '') => WsClient.open<StreamMessage>(`/v1/games/${id}/stream${query}`);

/** A client's board, folded from the stream's messages as a client would keep it. */
class Board {
  sans: string[] = [];
  fen = '';
  v = 0;
  turn = '';
  times: unknown;

  apply(m: WsMessage): void {
    if (m.type === 'state') {
      this.sans = m.game.moves.flatMap((row: any) => (row.black === null ? [row.white] : [row.white, row.black]));
      [this.fen, this.turn, this.times] = [m.game.fen, m.game.current_turn, { white: m.game.white_time_remaining, black: m.game.black_time_remaining }];
    } else if (m.type === 'move') {
      this.sans.push(m.move.san);
      [this.fen, this.turn, this.times] = [m.move.fen, m.move.current_turn, m.times];
    } else if (m.type === 'takeback') {
      this.sans.length = m.move_count;
      [this.fen, this.turn, this.times] = [m.fen, m.current_turn, m.times];
    } else if (m.type !== 'time_update' && m.type !== 'takeback_offer') {
      return;
    }
    if (typeof m.v === 'number') this.v = m.v;
  }

  /** Reads messages until the board stands at event `v`. */
  async follow(s: WsClient<StreamMessage>, v: number): Promise<WsMessage[]> {
    const seen: WsMessage[] = [];
    while (this.v < v) {
      const m = await s.next();
      seen.push(m);
      this.apply(m);
    }
    return seen;
  }
}

describe('Takebacks on the game stream', () => {
  it('shows a client replaying the buffer (?since=) the same board as one that watched, both as REST shows it', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const watcher = await stream(game.id);
    const live = new Board();
    await live.follow(watcher, 0);
    await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    await live.follow(watcher, 4);

    // A second client follows until v 2, then drops off.
    const resumer = await stream(game.id);
    const resumed = new Board();
    await resumed.follow(resumer, 4); // its state is v 4; it keeps the board as of v 2 below
    resumer.close();
    const atTwo = { sans: live.sans.slice(0, 2), fen: (await getGame(game.id, w)).body.data.fen };
    resumed.sans = atTwo.sans;
    resumed.v = 2;

    const proposed = await api('POST', `/v1/games/${game.id}/takeback`, as(w)); // White's turn: Nf3 and Nc6
    assert.equal(proposed.status, 200, proposed.text);
    const accepted = await api('POST', `/v1/games/${game.id}/takeback/${proposed.body.data.takeback.id}`, as(b, { accept: true }));
    assert.equal(accepted.status, 200, accepted.text);
    await playLine(game, ['d2d4'], 2); // the freed ply 3 again
    const seen = await live.follow(watcher, 7);
    const offer = seen.find((m) => m.type === 'takeback_offer')!;
    assert.deepEqual([offer.v, offer.takeback], [5, proposed.body.data.takeback]);
    const takeback = seen.find((m) => m.type === 'takeback')!;
    const after = accepted.body.data.game;
    assert.deepEqual(
      { ...takeback, ts: 0 },
      {
        type: 'takeback', takeback_id: proposed.body.data.takeback.id, plies: 2, fen: after.fen, move_count: 2, current_turn: 'white',
        times: { white: after.white_time_remaining, black: after.black_time_remaining }, v: 6, ts: 0,
      },
    );

    const again = await stream(game.id, '?since=2');
    const replayed = await resumed.follow(again, 7);
    assert.deepEqual(
      replayed.map((m) => `${m.type}:${m.v}`),
      ['move:3', 'time_update:3', 'move:4', 'time_update:4', 'takeback_offer:5', 'takeback:6', 'move:7'],
    );
    resumed.apply(await again.next('time_update'));
    live.apply(await watcher.next('time_update'));
    const detail = (await getGame(game.id, w)).body.data;
    for (const board of [live, resumed]) {
      assert.deepEqual([board.sans, board.fen, board.turn], [['e4', 'e5', 'd4'], detail.fen, detail.current_turn]);
    }
    assert.deepEqual(resumed.times, live.times);
    assert.equal(detail.pgn, '1. e4 e5 2. d4');

    // A client arriving now gets a state that is the same board.
    const late = await stream(game.id);
    const fresh = new Board();
    await fresh.follow(late, 7);
    assert.deepEqual([fresh.sans, fresh.fen, fresh.turn], [live.sans, live.fen, live.turn]);
    for (const s of [watcher, again, late]) s.close();
  });
});
