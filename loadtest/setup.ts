import { Client, type Room } from '@colyseus/sdk';
import { postData } from '../test/support/process.ts';

/** Data the benchmarks set up through the API, as players would. */
export type Player = { id: string; token: string };
export type BenchGame = { id: string; white: Player; black: Player };

async function signup(base: string, name: string): Promise<Player> {
  const d = await postData(base, '/v1/auth/signup', { email: `${name}@example.com`, password: 'benchmark1', username: name });
  return { id: d.user.id, token: d.session.access_token };
}

/** Two new players and a rapid 15+10 game between them, accepted (active; White to move). */
export async function newGame(base: string, tag: string): Promise<BenchGame> {
  const name = `${tag}_${process.pid % 10000}`;
  const white = await signup(base, `w${name}`);
  const black = await signup(base, `b${name}`);
  const game = await postData(
    base,
    '/v1/games',
    { type: 'challenge', opponent_id: black.id, time_control: 'rapid', initial_time: 900, increment: 10, color: 'white' },
    white.token,
  );
  await postData(base, `/v1/games/${game.id}/accept`, {}, black.token);
  return { id: game.id, white, black };
}

/** `count` games, `batch` set up at a time. */
export async function setupGames(base: string, count: number, prefix: string, batch = 20): Promise<BenchGame[]> {
  const out: BenchGame[] = [];
  for (let i = 0; i < count; i += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => newGame(base, `${prefix}${i + j}`)))));
  }
  return out;
}

/**
 * Both players of each game in their rooms, 100 games at a time: a burst of thousands of
 * handshakes at once would measure the listen backlog, not the service.
 */
export async function joinGames(port: number, games: BenchGame[]): Promise<{ white: Room; black: Room }[]> {
  const rooms: { white: Room; black: Room }[] = [];
  for (let i = 0; i < games.length; i += 100) {
    const joined = await Promise.all(
      games.slice(i, i + 100).map(async (g) => {
        const sdk = new Client(`ws://127.0.0.1:${port}`);
        const white = await sdk.joinById(g.id, { token: g.white.token });
        const black = await sdk.joinById(g.id, { token: g.black.token });
        return { white, black };
      }),
    );
    rooms.push(...joined);
  }
  return rooms;
}

/** 40 plies of a quiet game: nothing ends it, no position comes three times. */
export const LINE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'e2e4', 'e7e5', 'f1c4', 'f8c5', 'd2d3', 'd7d6', 'c1g5', 'c8g4', 'h2h3', 'h7h6', 'g5h4', 'g4h5', 'a2a3', 'a7a6', 'b2b4', 'b7b5', 'c4b3', 'c5b6', 'a3a4', 'a6a5', 'b4a5', 'b6a5', 'a4b5', 'c6b4', 'e1g1', 'e8g8', 'c3e2', 'd8e7', 'e2g3', 'h5g6', 'd1e2', 'f8e8', 'f1e1', 'e7f8', 'c2c3', 'b4c6'];

/** Sends a move and resolves with when it was sent and when its answer came. */
export function sendMove(room: Room, uci: string): Promise<{ sent: number; ack: number }> {
  const sent = performance.now();
  return new Promise((resolve, reject) => {
    const offOk = room.onMessage('move:ok', () => (offOk(), offErr(), resolve({ sent, ack: performance.now() })));
    const offErr = room.onMessage('error', (e: { code: string }) => (offOk(), offErr(), reject(new Error(e.code))));
    room.send('move', { from: uci.slice(0, 2), to: uci.slice(2, 4), ...(uci[4] ? { promotion: uci[4] } : {}) });
  });
}

/** The `v` and `ts` of a game stream's move message, without parsing the whole of it (the spectators are many). */
export function moveVt(text: string): { v: number; ts: number } | undefined {
  if (!text.startsWith('{"type":"move"')) return undefined;
  const v = text.lastIndexOf('"v":');
  const ts = text.lastIndexOf('"ts":');
  if (v < 0) return undefined;
  return { v: Number.parseInt(text.slice(v + 4), 10), ts: ts < 0 ? NaN : Number.parseInt(text.slice(ts + 5), 10) };
}
