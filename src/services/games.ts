import { randomInt, randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import * as repo from '../db/games.ts';
import type { GameListFilter, GameRecord } from '../db/games.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import { findUserById } from '../db/users.ts';
import type { Color, GameResult } from '../domain/game.ts';
import { parseId } from '../domain/ids.ts';
import { validateTimeControl, type TimeControl } from '../domain/timeControl.ts';
import { AppError, validationError } from '../errors.ts';
import { callGame, callPool, openGame } from '../gateway/index.ts';
import { cancelOpenSeeksOf, findSeekRedirect } from '../db/seeks.ts';
import { poolId } from '../domain/pairing.ts';
import { channels } from './channelEvents.ts';
import type { CommandInput } from './liveGame.ts';
import type { LiveGameHost } from './liveGameHost.ts';
import { assertMaySeek, type SeekResult } from './seekPool.ts';
import type { LobbyEvent } from './seekViews.ts';
import { gameStatusChanged } from './gameEvents.ts';
import { emitGameStarted } from './webhooks.ts';
import { userNotifier } from './userEvents.ts';
import {
  formatGameDetail,
  formatGameListItem,
  formatGamePgn,
  formatPendingGame,
  type DetailInput,
  type GameDetail,
  type GameListItem,
  type PendingGameView,
} from './gameViews.ts';


export type CreateGameInput = {
  type: 'challenge' | 'matchmaking';
  opponent_id?: string;
  time_control: TimeControl;
  initial_time: number;
  increment: number;
  rated: boolean;
  color: Color | 'random';
};

export type ListGamesInput = {
  /** `pending`: the caller's own pending games (challenges sent and received, open seeks). */
  status?: GameListFilter['status'];
  player_id?: string;
  time_control?: TimeControl;
  result?: GameResult;
  tournament_id?: string;
  search?: string;
  page: number;
  limit: number;
  /** `field` (ordered by `order`) or `-field` (descending whatever `order` says). */
  sort?: 'created_at' | 'updated_at' | '-created_at' | '-updated_at';
  order?: 'asc' | 'desc';
};

export type MoveInput = { from: string; to: string; promotion?: string | null };
/** What a REST request adds to a player's command: its Idempotency-Key, and when it was read (ms). */
export type CommandRequest = { idempotencyKey?: string; receivedAt?: number };

export type GamesService = ReturnType<typeof createGamesService>;

/** What a stream starts from: the game's detail and the number of its last event (`v`). */
export type GameSnapshot = { game: GameDetail; v: number };

const notFound = () => new AppError('GAME_NOT_FOUND', 'Game not found');
/** A viewer who is nobody's opponent (the nil uuid is never a user's id). */
const NO_VIEWER = '00000000-0000-0000-0000-000000000000';

type Seating = Pick<GameRecord, 'whiteId' | 'blackId' | 'createdBy'>;
const isPlayer = (g: Seating, userId: string) => g.whiteId === userId || g.blackId === userId;
const isParticipant = (g: Seating, userId: string) => isPlayer(g, userId) || g.createdBy === userId;
/** The challenged player: seated in a challenge they did not create. */
const isChallenged = (g: GameRecord, userId: string) => g.kind === 'challenge' && isPlayer(g, userId) && g.createdBy !== userId;
/** Pending and not past its deadline (the sweeper abandons it within a second of that). */
const isOpen = (g: GameRecord, now: number) => g.status === 'pending' && (!g.expiresAt || g.expiresAt.getTime() > now);

/** A pending game exists only for its participants (DESIGN 2.8); anyone else is told 404. */
export function visibleTo<G extends Pick<GameRecord, 'status' | 'whiteId' | 'blackId' | 'createdBy'>>(g: G | undefined, userId: string): G {
  if (!g || (g.status === 'pending' && !isParticipant(g, userId))) throw notFound();
  return g;
}

/** 409 PLAYER_BUSY when one of them plays an active game (pending ones do not count). */
async function assertFree(db: Queryable, players: { id: string; self: boolean }[]): Promise<void> {
  for (const p of players) {
    if (await repo.userHasOpenGame(db, p.id)) {
      throw new AppError('PLAYER_BUSY', p.self ? 'You are already playing a game' : 'Your opponent is already playing a game');
    }
  }
}

/**
 * The game use cases REST serves. Changes to a live game (move, resign, draw) are checked here
 * only as far as the order of errors demands (exists → player → active), then judged by the
 * game's room, its only writer.
 */
export function createGamesService(ctx: AppContext, liveGames?: LiveGameHost) {
  const { pool, config, log, clock } = ctx;
  const notify = userNotifier(ctx);
  const env = (now = clock.now()) => ({ publicUrl: config.publicUrl, now });

  async function findVisible(userId: string, requestedId: string): Promise<GameRecord> {
    const id = parseId(requestedId);
    if (!id) throw notFound();
    return visibleTo(await repo.findGame(pool, id), userId);
  }

  /** The game's detail as of `now`: from its actor when this process hosts it, else from PostgreSQL. */
  async function loadDetail(userId: string, requestedId: string, now: number): Promise<DetailInput> {
    const id = parseId(requestedId);
    if (!id) throw notFound();
    // The actor is the game's only writer and holds all of it: a read costs no round trip.
    const hosted = liveGames?.find(id)?.detail(now);
    if (hosted) {
      visibleTo(hosted.game, userId);
      return hosted;
    }
    let found = await repo.findGameDetail(pool, id);
    if (!found) {
      // A seek paired with an older one lives on in that one's game; its owner is led there.
      const redirect = await findSeekRedirect(pool, id);
      if (redirect?.userId === userId) found = await repo.findGameDetail(pool, redirect.gameId);
    }
    const game = visibleTo(found?.game, userId);
    const { moves, drawOffer } = found!;
    const seated = [game.whiteId, game.blackId].filter((x): x is string => x !== null);
    const ratings = game.status === 'pending' ? await repo.findCategoryRatings(pool, seated, game.timeControl) : undefined;
    return { game, moves, drawOffer, ratings };
  }

  async function getGame(userId: string, id: string): Promise<GameDetail> {
    const now = clock.now();
    return formatGameDetail(await loadDetail(userId, id, now), env(now));
  }

  /** The game as a stream viewer (anyone, or a player with a token) sees it, with its event number. */
  async function snapshot(viewerId: string | undefined, id: string): Promise<GameSnapshot> {
    const now = clock.now();
    const detail = await loadDetail(viewerId ?? NO_VIEWER, id, now);
    return { game: formatGameDetail(detail, env(now)), v: detail.game.eventSeq };
  }

  /** Tells both players' lobbies that their list of pending challenges changed. */
  function challengesChanged(...userIds: (string | null)[]): void {
    for (const id of new Set(userIds)) if (id) notify(id, { type: 'challenges_changed' });
  }

  /**
   * Matchmaking: the pool of the time control decides (one actor per pool, reached through the
   * gateway). Paired at once → 201 with the active game; else 201 with the pending seek.
   */
  async function seek(
    userId: string,
    input: CreateGameInput,
    tc: { time_control: TimeControl; initial_time: number; increment: number },
  ): Promise<PendingGameView | GameDetail> {
    const key = { timeControl: tc.time_control, initialTime: tc.initial_time, increment: tc.increment, rated: input.rated };
    const options = { time_control: tc.time_control, initial_time: tc.initial_time, increment: tc.increment, rated: input.rated };
    // A busy player is refused here, before a pool room is found or created for nothing.
    await assertMaySeek(pool, userId, tc.time_control);
    const result = await callPool<SeekResult>(poolId(key), options, 'apiSeek', [userId, input.color]);
    if (result.status === 'active') return getGame(userId, result.gameId);
    const pending = await repo.findGame(pool, result.seekId);
    if (!pending) throw notFound();
    return formatPendingGame(pending, config.publicUrl);
  }

  async function createGame(userId: string, input: CreateGameInput): Promise<PendingGameView | GameDetail> {
    const tc = validateTimeControl(input);
    if (!tc.ok) {
      const details = Object.fromEntries(Object.entries(tc.error).map(([field, message]) => [field, [message]]));
      throw new AppError('VALIDATION_ERROR', 'Invalid time control', details);
    }
    if (input.type === 'matchmaking') return seek(userId, input, tc.value);
    // The body's schema took it for a UUID; parsed, it is the id the opponent's channel and rows go by.
    const opponentId = parseId(input.opponent_id);
    if (!opponentId) throw validationError('opponent_id', 'required when type is challenge');
    if (opponentId === userId) throw validationError('opponent_id', 'you cannot challenge yourself');
    const [challenger, opponent] = await Promise.all([findUserById(pool, userId), findUserById(pool, opponentId)]);
    if (!opponent) throw new AppError('USER_NOT_FOUND', 'Opponent not found');
    await assertFree(pool, [
      { id: userId, self: true },
      { id: opponentId, self: false },
    ]);
    const creatorColor: Color = input.color === 'random' ? (randomInt(2) === 0 ? 'white' : 'black') : input.color;
    const game = await repo.insertPendingGame(pool, {
      kind: 'challenge',
      createdBy: userId,
      whiteId: creatorColor === 'white' ? userId : opponentId,
      blackId: creatorColor === 'white' ? opponentId : userId,
      colorPreference: input.color,
      timeControl: tc.value.time_control,
      initialTime: tc.value.initial_time,
      increment: tc.value.increment,
      rated: input.rated,
      expiresAt: new Date(clock.now() + config.challengeTtlMs),
    });
    challengesChanged(userId, opponentId);
    notify(opponentId, { type: 'challenge_received', game_id: game.id, from: { id: userId, username: challenger?.username ?? '' } });
    return formatPendingGame(game, config.publicUrl);
  }

  async function acceptGame(userId: string, requestedId: string): Promise<GameDetail> {
    const game = await findVisible(userId, requestedId);
    const id = game.id;
    if (!isChallenged(game, userId)) throw new AppError('FORBIDDEN', 'Only the challenged player may accept');
    if (!isOpen(game, clock.now())) throw new AppError('GAME_NOT_PENDING', `The game is ${game.status === 'pending' ? 'expired' : game.status}`);
    const whiteId = game.whiteId!;
    const blackId = game.blackId!;
    const cancelledSeeks = await withTransaction(pool, async (tx) => {
      // Player locks before the game row: the order every seating path takes.
      await repo.lockPlayers(tx, [whiteId, blackId]);
      const locked = await repo.lockGame(tx, id);
      if (!locked || !isOpen(locked, clock.now())) throw new AppError('GAME_NOT_PENDING', 'The game is no longer pending');
      await assertFree(tx, [
        { id: userId, self: true },
        { id: game.createdBy, self: false },
      ]);
      const ratings = await repo.findCategoryRatings(tx, [whiteId, blackId], game.timeControl);
      await repo.activateGame(tx, id, {
        whiteId,
        blackId,
        whiteRating: ratings.get(whiteId)!,
        blackRating: ratings.get(blackId)!,
        firstMoveDeadline: new Date(clock.now() + config.firstMoveMs),
      });
      await emitGameStarted(tx, id, [whiteId, blackId]);
      return cancelOpenSeeksOf(tx, [whiteId, blackId]);
    });
    for (const seekId of cancelledSeeks) {
      const removed: LobbyEvent = { type: 'seek_removed', id: seekId, reason: 'cancelled' };
      ctx.events.publish(channels.lobby, { ...removed, ts: clock.now() });
    }
    // The room runs the first-move deadline. Should it fail to start now, the game is active all
    // the same: the next call (or the sweeper's look at lease-less games) opens it.
    await openGame(id).catch((err) => log.warn({ err, gameId: id }, 'could not open the room of an accepted game'));
    challengesChanged(whiteId, blackId);
    gameStatusChanged(ctx, id, 'active');
    for (const player of [whiteId, blackId]) notify(player, { type: 'game_started', game_id: id });
    return getGame(userId, id);
  }

  async function closePending(userId: string, requestedId: string, reason: 'declined' | 'cancelled'): Promise<GameDetail> {
    const game = await findVisible(userId, requestedId);
    const id = game.id;
    const allowed = reason === 'declined' ? isChallenged(game, userId) : game.createdBy === userId;
    if (!allowed) {
      throw new AppError('FORBIDDEN', reason === 'declined' ? 'Only the challenged player may decline' : 'Only the challenger may cancel');
    }
    if (!isOpen(game, clock.now()) || !(await repo.abandonPendingGame(pool, id, reason))) {
      throw new AppError('GAME_NOT_PENDING', 'The game is no longer pending');
    }
    gameStatusChanged(ctx, id, 'abandoned');
    const detail = await getGame(userId, id);
    if (game.kind === 'challenge') {
      challengesChanged(game.whiteId, game.blackId);
      const me = [detail.white_player, detail.black_player].find((p) => p?.id === userId);
      const by = { id: userId, username: me?.username ?? '' };
      const other = game.whiteId === userId ? game.blackId : game.whiteId;
      if (other) notify(other, reason === 'declined' ? { type: 'challenge_declined', game_id: id, by } : { type: 'challenge_cancelled', game_id: id, by });
    }
    return detail;
  }

  async function listGames(userId: string, q: ListGamesInput): Promise<{ games: GameListItem[]; total: number }> {
    const descending = q.sort?.startsWith('-');
    const field = (q.sort?.replace(/^-/, '') ?? 'created_at') as repo.GameListOrder['field'];
    const { games, total } = await repo.listGames(
      pool,
      {
        viewerId: userId,
        status: q.status,
        playerId: parseId(q.player_id),
        timeControl: q.time_control,
        result: q.result,
        tournamentId: parseId(q.tournament_id),
        search: q.search || undefined,
      },
      { field, direction: descending ? 'desc' : (q.order ?? 'desc') },
      { limit: q.limit, offset: (q.page - 1) * q.limit },
    );
    // Pending games show the players' current ratings (as their detail does): one lookup per
    // category on the page, which is one or two for a player's handful of pending games.
    const pending = games.filter((g) => g.status === 'pending');
    const categories = [...new Set(pending.map((g) => g.timeControl))];
    const ratings = new Map(
      await Promise.all(
        categories.map(async (category) => {
          const seated = pending
            .filter((g) => g.timeControl === category)
            .flatMap((g) => [g.whiteId, g.blackId])
            .filter((id): id is string => id !== null);
          return [category, await repo.findCategoryRatings(pool, [...new Set(seated)], category)] as const;
        }),
      ),
    );
    const e = env();
    return { games: games.map((g) => formatGameListItem(g, e, userId, ratings.get(g.timeControl))), total };
  }

  async function getPgn(userId: string, id: string): Promise<string> {
    return formatGamePgn(await loadDetail(userId, id, clock.now()), config.publicUrl);
  }

  /** The checks REST owes before the room judges: exists (404) → a player (403) → active (409). */
  async function forLiveGame(userId: string, id: string): Promise<GameRecord> {
    const game = await findVisible(userId, id);
    if (!isPlayer(game, userId)) throw new AppError('NOT_A_PLAYER', 'You are not a player of this game');
    if (game.status !== 'active') throw new AppError('GAME_NOT_ACTIVE', `The game is ${game.status}`);
    return game;
  }

  /**
   * Hands a player's command to the game's room. The room remembers answered keys: the client's
   * Idempotency-Key when given, else one made for this request, so the gateway's own retry after
   * a timeout is answered as the first try was and never acts twice. `receivedAt` (when the
   * request was read) travels with the command, to whichever node hosts the game: the room
   * times the command from then, not from when its turn comes.
   */
  async function command(requestedId: string, input: CommandInput, request: CommandRequest): Promise<unknown> {
    // The room is keyed by the game's own id: another spelling of it would open a second room.
    const { id: gameId } = await forLiveGame(input.userId, requestedId);
    const { idempotencyKey, receivedAt } = request;
    const key = idempotencyKey === undefined ? `request:${randomUUID()}` : `rest:${input.userId}:${idempotencyKey}`;
    return callGame(gameId, 'apiCommand', [receivedAt === undefined ? input : { ...input, receivedAt }, key]);
  }

  /** A pending game expired (the sweeper): its stream is told, and so are a challenge's two players. */
  function pendingExpired(game: GameRecord): void {
    gameStatusChanged(ctx, game.id, 'abandoned');
    if (game.kind !== 'challenge') return;
    challengesChanged(game.whiteId, game.blackId);
    for (const id of [game.whiteId, game.blackId]) if (id) notify(id, { type: 'challenge_expired', game_id: game.id });
  }

  return {
    createGame,
    acceptGame,
    pendingExpired,
    declineGame: (userId: string, id: string) => closePending(userId, id, 'declined'),
    cancelGame: (userId: string, id: string) => closePending(userId, id, 'cancelled'),
    getGame,
    /** What anyone may see: a started or ended game; a pending one is 404 (it exists only for its players). */
    getPublicGame: (id: string) => getGame(NO_VIEWER, id),
    snapshot,
    listGames,
    getPgn,
    makeMove: (userId: string, id: string, move: MoveInput, request: CommandRequest = {}) =>
      command(id, { type: 'move', userId, from: move.from, to: move.to, promotion: move.promotion ?? null }, request),
    resign: (userId: string, id: string, request: CommandRequest = {}) => command(id, { type: 'resign', userId }, request),
    offerDraw: (userId: string, id: string, request: CommandRequest = {}) => command(id, { type: 'offer_draw', userId }, request),
    answerDraw: (userId: string, id: string, offerId: string, accept: boolean, request: CommandRequest = {}) =>
      command(id, { type: 'answer_draw', userId, offerId, accept }, request),
  };
}
