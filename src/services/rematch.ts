// DESIGN 2.11, rematch: a player of a finished game asks for another with colours swapped. The
// rematch is an ordinary challenge (made by insertChallenge, answered by acceptGame and the other
// challenge routes) that names the game it follows; one per finished game.
import { isComputerAccount } from '../db/players.ts';
import { findRematchOf, lockGame, type GameRecord } from '../db/games.ts';
import { withTransaction } from '../db/pool.ts';
import { findUserById } from '../db/users.ts';
import { AppError } from '../errors.ts';
import { channels } from './channelEvents.ts';
import { challengesChanged, findVisible, isOpen, isPlayer, notify, type GamesDeps } from './gameAccess.ts';
import { acceptGame, insertChallenge } from './gameLifecycle.ts';
import { formatPendingGame, type GameDetail, type PendingRematchView } from './gameViews.ts';

/** 201 a new pending rematch; 200 the caller's own pending one again, or the opponent's accepted (the game, active). */
export type RematchAnswer = { status: 201 | 200; data: PendingRematchView | GameDetail };

type Outcome = { kind: 'created' | 'again' | 'accept'; game: GameRecord };

export async function requestRematch(d: GamesDeps, userId: string, requestedId: string): Promise<RematchAnswer> {
  const finished = await findVisible(d, userId, requestedId);
  if (!isPlayer(finished, userId)) throw new AppError('NOT_A_PLAYER', 'You are not a player of this game');
  if (finished.status !== 'finished') throw new AppError('GAME_NOT_FINISHED', `The game is ${finished.status}`);
  if (finished.kind === 'tournament' || finished.tournamentId) {
    throw new AppError('REMATCH_NOT_ALLOWED', 'An arena pairs its own games: no rematch');
  }
  const opponentId = finished.whiteId === userId ? finished.blackId! : finished.whiteId!;
  // The computer accepts no challenge (DESIGN 2.14): a new POST /games {type: "computer"} it is.
  if (await isComputerAccount(d.pool, opponentId)) throw new AppError('REMATCH_NOT_ALLOWED', 'The computer takes no rematch: start a new game against it');
  const outcome = await withTransaction(d.pool, async (tx): Promise<Outcome> => {
    // The finished game's row lock orders two asks made at once: the second finds the first's
    // rematch and accepts it (games_rematch_of_idx would refuse a second rematch all the same).
    await lockGame(tx, finished.id);
    const existing = await findRematchOf(tx, finished.id);
    if (existing) {
      if (!isOpen(existing, d.clock.now())) throw new AppError('REMATCH_NOT_ALLOWED', 'This game has had its rematch');
      return { kind: existing.createdBy === userId ? 'again' : 'accept', game: existing };
    }
    const game = await insertChallenge(d, tx, {
      challengerId: userId,
      opponentId,
      // Colours swapped: the caller takes the colour the opponent had.
      color: finished.whiteId === userId ? 'black' : 'white',
      timeControl: finished.timeControl,
      initialTime: finished.initialTime,
      increment: finished.increment,
      daysPerMove: finished.daysPerMove,
      rated: finished.rated,
      rematchOf: finished.id,
    });
    return { kind: 'created', game };
  });
  if (outcome.kind === 'accept') return { status: 200, data: await acceptGame(d, userId, outcome.game.id) };
  const data = { ...formatPendingGame(outcome.game, d.config.publicUrl), rematch_of: finished.id };
  if (outcome.kind === 'again') return { status: 200, data };
  await announce(d, outcome.game, finished.id, userId, opponentId);
  return { status: 201, data };
}

/**
 * Told once the rematch is committed: the opponent on their user channel (as a challenge is), both
 * lobbies' challenge lists, and whoever still follows the finished game (its room while it lingers
 * after the end, a stream still open) on the game's channel.
 */
async function announce(d: GamesDeps, rematch: GameRecord, finishedId: string, userId: string, opponentId: string): Promise<void> {
  const me = await findUserById(d.pool, userId);
  challengesChanged(d, userId, opponentId);
  notify(d, opponentId, { type: 'rematch_offer', game_id: rematch.id, rematch_of: finishedId, from: { id: userId, username: me?.username ?? '' } });
  d.events.publish(channels.game(finishedId), { type: 'rematch_offer', game_id: rematch.id, offered_by: userId, ts: d.clock.now() });
}
