import { postData } from '../test/helpers/process.ts';

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
