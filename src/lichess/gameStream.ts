// Lichess's Board and Bot game streams (`GET /api/board/game/stream/{id}`, `/api/bot/game/stream/{id}`):
// a session of watching the game (src/realtime/gameWatchSession.ts), the one every other stream of
// a game is, whose subscriber spells the service's stream messages (docs/protocol.md) as Lichess's
// lines. An adapter: it judges nothing, it only keeps what Lichess's lines carry (gameState.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthUser } from '../auth/scopes.ts';
import { parseId } from '../domain/ids.ts';
import type { Logger } from '../logger.ts';
import type { Realtime } from '../realtime/index.ts';
import type { SessionDeps } from '../realtime/deps.ts';
import { GameWatchSession } from '../realtime/gameWatchSession.ts';
import type { HttpPeer } from '../realtime/httpPeer.ts';
import { notFound } from '../services/gameAccess.ts';
import type { GameSnapshot } from '../services/games.ts';
import type { GameStreamEvent, ServerMessage, Wire } from '../realtime/messages.ts';
import type { Ending, Subscriber } from '../realtime/subscriber.ts';
import { LichessBoard, type GameFacts, type GameStreamLine } from './gameState.ts';

export type LichessGameStreamOptions = {
  /** Who streams: the player whose opponent `opponentGone` is about (a spectator hears none). */
  viewerId: string;
  now: () => number;
  /** The game read again after its end: its final clocks and status. */
  final: () => Promise<GameSnapshot>;
  log: Logger;
};

const NO_FACTS: GameFacts = { bots: new Set() };

/**
 * One Lichess stream of one game over an NDJSON response: `gameFull` first, a `gameState` after
 * every change of the game (a move, a takeback, an offer made or closed, the end), `chatLine`,
 * `opponentGone`; after the final `gameState` the body ends. A clock tick (`time_update`) sends
 * nothing (Lichess sends no line for one): its clocks show in the next `gameState`.
 */
export class LichessGameStream implements Subscriber {
  private board: LichessBoard | undefined;
  private facts: GameFacts = NO_FACTS;
  /** The final `gameState` on its way (the game is read again once it ended): the body ends after it. */
  private last: Promise<void> | undefined;

  constructor(
    private readonly peer: HttpPeer,
    private readonly o: LichessGameStreamOptions,
  ) {}

  get open(): boolean {
    return this.peer.open;
  }

  get buffered(): number {
    return this.peer.buffered;
  }

  /** What the next `state` message's game also needs (read with it: its pending takeback, its bots). */
  learn(facts: GameFacts): void {
    this.facts = facts;
  }

  /** The 200 goes out with `gameFull`. */
  begin(): void {}

  send(message: ServerMessage | Wire<ServerMessage>): void {
    this.sendParsed(typeof message === 'string' ? (JSON.parse(message) as ServerMessage) : message);
  }

  /** A game's message as the hub parsed it (a relayed one) or as the session made it. */
  sendParsed(message: ServerMessage): void {
    const m = message as GameStreamEvent;
    if (!this.board) {
      if (m.type !== 'state') return;
      this.board = new LichessBoard(m.game, this.facts);
      return this.write(this.board.full(this.facts));
    }
    const board = this.board;
    if (board.over) return;
    switch (m.type) {
      case 'state':
        // After a hole the watch starts again from the game as it stands.
        this.board = new LichessBoard(m.game, this.facts);
        return this.write(this.board.state());
      case 'move':
        board.moved(m.move, m.times);
        // A move that ends the game (the game's actor says so) is told by the final state, which
        // its game_end brings: Lichess sends no state of a finished game as started.
        return m.ends_game ? undefined : this.write(board.state());
      case 'time_update':
        return board.ticked(m.times);
      case 'draw_offer':
        board.drawOffer(m.draw_offer);
        // An accepted offer ends the game: its final state follows.
        return m.draw_offer.status === 'accepted' || this.lapsedByMove(m.draw_offer) ? undefined : this.write(board.state());
      case 'takeback_offer':
        board.takebackOffer(m.takeback);
        return m.takeback.status === 'accepted' || this.lapsedByMove(m.takeback) ? undefined : this.write(board.state());
      case 'takeback':
        board.takenBack(m.plies, m.times);
        return this.write(board.state());
      case 'game_end':
        this.last = this.finish(board, m);
        return;
      case 'chat':
        return this.write({ type: 'chatLine', room: m.room, username: m.message.user.username, text: m.message.text });
      case 'opponent_gone':
      case 'opponent_back':
        return this.opponent(board, m);
      default:
        return; // a rematch offer, a pong: nothing of Lichess's game stream
    }
  }

  end(ending: Ending): void {
    if (ending.kind === 'over') {
      if (!this.last) return this.peer.end(ending);
      void this.last.finally(() => this.peer.end(ending));
      return;
    }
    if (!this.peer.live) return this.peer.refuse(ending.error);
    // Lichess's streams carry no error line: a stream that breaks off is cut (a client sees it
    // broken and comes back), while a clean end means the game is over.
    this.o.log.debug({ ending: ending.kind }, 'Lichess game stream cut');
    this.peer.res.destroy();
  }

  /** The final `gameState`, with the clocks and status of the game read after its end. */
  private async finish(board: LichessBoard, end: Extract<GameStreamEvent, { type: 'game_end' }>): Promise<void> {
    try {
      board.ended((await this.o.final()).game);
    } catch (error) {
      this.o.log.warn({ err: error }, 'the game could not be read after its end');
      board.endedAs(end);
    }
    this.write(board.state());
  }

  /**
   * An offer that lapsed before its time ran out lapsed with a move (or the game's end), whose line
   * comes next and shows it gone: Lichess sends that one line. A line of its own would show the old
   * moves with the mover still to play, and a client that moves on every gameState of its turn
   * (a by-hand berserk script did) would move twice.
   */
  private lapsedByMove(offer: { status: string; expires_at: string }): boolean {
    return offer.status === 'expired' && Date.parse(offer.expires_at) > this.o.now();
  }

  /** Lichess tells a player about the opponent only; `claimWinInSeconds` counts down to the claim. */
  private opponent(board: LichessBoard, m: Extract<GameStreamEvent, { type: 'opponent_gone' | 'opponent_back' }>): void {
    const me = board.colorOf(this.o.viewerId);
    if (!me || m.color === me) return;
    if (m.type === 'opponent_back') return this.write({ type: 'opponentGone', gone: false });
    const claimWinInSeconds = Math.max(0, Math.ceil((Date.parse(m.claimable_at) - this.o.now()) / 1000));
    this.write({ type: 'opponentGone', gone: true, claimWinInSeconds });
  }

  private write(line: GameStreamLine): void {
    this.peer.sendLine(JSON.stringify(line));
  }
}

/** What opening a Lichess game stream needs (src/lichess/games.ts gives it from LichessDeps). */
export type OpenGameStreamDeps = {
  realtime: Realtime;
  /** What the game's detail does not say: its pending takeback, its bot players. */
  facts: (game: GameSnapshot['game']) => Promise<GameFacts>;
  log: Logger;
};

/**
 * Opens the stream of game `gameId` for `user` on `res`, counted as one of the node's streams
 * (the address's cap, the user's cap, the keep-alive round, the shutdown). The token's Lichess
 * scope reads its own games as `games:read` does (a player's stream carries the player room's
 * chat, as Lichess's does); anyone else streams the game as a spectator. Refusals before the first
 * line are Lichess's `{"error"}` answers (`refuseWith`): 404 for an unknown game, 429 past a cap.
 */
export async function openLichessGameStream(
  d: OpenGameStreamDeps,
  http: { req: IncomingMessage; res: ServerResponse; refuseWith: (error: unknown) => void },
  user: AuthUser,
  requestedId: string,
): Promise<void> {
  const peer = d.realtime.hostStream(http.req, http.res, http.refuseWith);
  if (!peer) return;
  const over = d.realtime.admitUser(peer, user.id);
  if (over) return peer.refuse(over);
  const gameId = parseId(requestedId);
  if (!gameId) return peer.refuse(notFound());
  const sessions = d.realtime.sessions;
  const viewer: AuthUser = { ...user, ...(user.scopes ? { scopes: [...user.scopes, 'games:read'] } : {}) };
  const stream = new LichessGameStream(peer, {
    viewerId: user.id,
    now: sessions.now,
    final: () => sessions.snapshot(viewer.id, gameId),
    log: d.log,
  });
  // The facts are read after the game (then an event after the game's read says newer).
  const snapshot: SessionDeps['snapshot'] = async (viewerId, id) => {
    const s = await sessions.snapshot(viewerId, id);
    stream.learn(await d.facts(s.game));
    return s;
  };
  const session = new GameWatchSession({ ...sessions, snapshot }, stream, { gameId, viewer });
  peer.onClose(() => session.close());
  await session.start();
}
