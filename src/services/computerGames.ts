// DESIGN 2.14, the computer: a game against one of this service's engine levels, active at once
// and unrated. Its bot account (stockfish-<level>, migration 032) plays through the game's actor
// like a person (src/workers/computer.ts).
import { randomInt } from 'node:crypto';
import { activateGame, findCategoryRatings, insertPendingGame, lockPlayers } from '../db/games.ts';
import { withTransaction } from '../db/pool.ts';
import type { Color } from '../domain/game.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { AppError } from '../errors.ts';
import { openGame } from '../gateway/index.ts';
import { countComputerGames, findComputerAccounts } from '../db/players.ts';
import type { GamesDeps } from './gameAccess.ts';
import { notify } from './gameAccess.ts';
import { gameStatusChanged } from './gameEvents.ts';
import { getGame } from './gameReads.ts';
import type { GameDetail } from './gameViews.ts';
import { emitGameStarted } from './webhooks.ts';

export type ComputerGameTerms = {
  level: number;
  timeControl: TimeControl;
  initialTime: number;
  increment: number;
  color: Color | 'random';
};

/**
 * 201 the active game. At most COMPUTER_GAMES_PER_USER active games against the computer per
 * user (409 PLAYER_BUSY beyond), counted under the user's player lock, the lock every seating
 * path takes. The bot is never busy: it plays any number of games at once.
 */
export async function createComputerGame(d: GamesDeps, userId: string, t: ComputerGameTerms): Promise<GameDetail> {
  const botId = [...(await findComputerAccounts(d.pool))].find(([, level]) => level === t.level)?.[0];
  if (!botId) throw new AppError('SERVICE_UNAVAILABLE', 'The computer is not available');
  const color: Color = t.color === 'random' ? (randomInt(2) === 0 ? 'white' : 'black') : t.color;
  const whiteId = color === 'white' ? userId : botId;
  const blackId = color === 'white' ? botId : userId;
  const id = await withTransaction(d.pool, async (tx) => {
    await lockPlayers(tx, [userId]);
    const playing = await countComputerGames(tx, userId);
    if (playing >= d.config.computerGamesPerUser) {
      throw new AppError('PLAYER_BUSY', `You already play ${playing} games against the computer (at most ${d.config.computerGamesPerUser} at once)`);
    }
    const now = d.clock.now();
    const game = await insertPendingGame(tx, {
      kind: 'challenge',
      createdBy: userId,
      whiteId,
      blackId,
      colorPreference: t.color,
      timeControl: t.timeControl,
      initialTime: t.initialTime,
      increment: t.increment,
      daysPerMove: null,
      rated: false,
      expiresAt: new Date(now + d.config.challengeTtlMs),
    });
    const ratings = await findCategoryRatings(tx, [whiteId, blackId], t.timeControl);
    await activateGame(tx, game.id, {
      whiteId,
      blackId,
      whiteRating: ratings.get(whiteId)!,
      blackRating: ratings.get(blackId)!,
      firstMoveDeadline: new Date(now + d.config.firstMoveMs),
      now: new Date(now),
    });
    await emitGameStarted(tx, game.id, [whiteId, blackId]);
    return game.id;
  });
  // The room runs the first-move deadline, and its opening lets the computer move when White.
  await openGame(id).catch((err) => d.log.warn({ err, gameId: id }, 'could not open the room of a computer game'));
  gameStatusChanged(d, id, 'active');
  notify(d, userId, { type: 'game_started', game_id: id });
  return getGame(d, userId, id);
}
