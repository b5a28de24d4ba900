import assert from 'node:assert/strict';
import { api, type ApiResponse } from './http.ts';
import type { TestUser } from './users.ts';

/** A valid blitz clock: 5+0 (estimate 300 s). */
export const BLITZ = { time_control: 'blitz', initial_time: 300, increment: 0 } as const;

export type ChallengeOptions = {
  time_control?: string;
  initial_time?: number;
  increment?: number;
  rated?: boolean;
  /** Correspondence games: the days each move may take. */
  days_per_move?: number;
  /** The challenger's colour; white unless told, so tests know who moves first. */
  color?: 'white' | 'black' | 'random';
};

export type ActiveGame = { id: string; white: TestUser; black: TestUser; detail: any };

export const as = (user: TestUser, body?: unknown) => ({ token: user.accessToken, ip: user.ip, body });

/** POST /games as `from` against `to`; returns the raw response. */
export function sendChallenge(from: TestUser, to: TestUser, o: ChallengeOptions = {}): Promise<ApiResponse> {
  return api('POST', '/v1/games', as(from, { type: 'challenge', opponent_id: to.id, ...BLITZ, color: 'white', ...o }));
}

/** A pending challenge from `from` to `to`; returns its id. */
export async function challenge(from: TestUser, to: TestUser, o: ChallengeOptions = {}): Promise<string> {
  const res = await sendChallenge(from, to, o);
  assert.equal(res.status, 201, `challenge failed: ${res.text}`);
  return res.body.data.id;
}

/**
 * An active game started the way players start one: `challenger` challenges, `opponent`
 * accepts. The challenger plays White unless `o.color` says otherwise. White must move within
 * FIRST_MOVE_SECONDS (3 s in tests) or the game is aborted.
 */
export async function createActiveGame(challenger: TestUser, opponent: TestUser, o: ChallengeOptions = {}): Promise<ActiveGame> {
  const id = await challenge(challenger, opponent, o);
  const res = await api('POST', `/v1/games/${id}/accept`, as(opponent));
  assert.equal(res.status, 200, `accept failed: ${res.text}`);
  const white = res.body.data.white_player.id === challenger.id ? challenger : opponent;
  return { id, white, black: white === challenger ? opponent : challenger, detail: res.body.data };
}

/** POST /games/:id/moves; returns the raw response (for the error cases). */
export function sendMove(game: ActiveGame | string, mover: TestUser, from: string, to: string, promotion?: string | null) {
  const id = typeof game === 'string' ? game : game.id;
  return api('POST', `/v1/games/${id}/moves`, as(mover, { from, to, ...(promotion !== undefined ? { promotion } : {}) }));
}

/** A move that must succeed; returns the response's data ({move, game}). */
export async function play(game: ActiveGame | string, mover: TestUser, from: string, to: string, promotion?: string | null) {
  const res = await sendMove(game, mover, from, to, promotion);
  assert.equal(res.status, 200, `move ${from}${to} failed: ${res.text}`);
  return res.body.data;
}

/** Plays UCI moves alternately from ply `fromPly` (White first from 0); returns the last data. */
export async function playLine(game: ActiveGame, ucis: string[], fromPly = 0) {
  let last: any;
  for (const [i, uci] of ucis.entries()) {
    const mover = (fromPly + i) % 2 === 0 ? game.white : game.black;
    last = await play(game, mover, uci.slice(0, 2), uci.slice(2, 4), uci[4] ?? undefined);
  }
  return last;
}

export function getGame(id: string, user: TestUser): Promise<ApiResponse> {
  return api('GET', `/v1/games/${id}`, as(user));
}

/** Polls GET /games/:id every 100 ms until `done` holds (or `timeoutMs` passes); returns the last view. */
export async function waitForGame(id: string, user: TestUser, done: (game: any) => boolean, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await getGame(id, user);
    assert.equal(res.status, 200, res.text);
    if (done(res.body.data) || Date.now() > until) return res.body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
}

let poolCounter = Math.floor(Math.random() * 100);
/**
 * A seek pool no other test uses in this run (pools are shared state of the running service):
 * blitz with its own initial time, 180..479 s and no increment.
 */
export function uniquePool(): { time_control: 'blitz'; initial_time: number; increment: number } {
  poolCounter = (poolCounter + 7) % 300;
  return { time_control: 'blitz', initial_time: 180 + poolCounter, increment: 0 };
}
