import { Room, type Client } from '@colyseus/core';
import { gameReader, requireScope, type AuthUser } from '../src/auth/scopes.ts';
import type { Color } from '../src/domain/game.ts';
import { ROOM_REFUSED, roomRefusal } from '../src/gateway/index.ts';
import { parseId } from '../src/domain/ids.ts';
import { GameActor, type GameEvent, type GameRoomApi } from '../src/services/gameActor.ts';
import { actorCommand, GAME_COMMAND_NAMES, payloadSchema, type GameCommandName } from '../src/services/gameCommandCatalogue.ts';
import type { PresenceNews, RematchOffer } from '../src/services/channelEvents.ts';
import type { LiveGameHost } from '../src/services/liveGameHost.ts';
import type { Chat } from '../src/services/chat.ts';
import type { LiveCredentials } from '../src/services/liveCredentials.ts';
import { RoomWrites } from './colyseusInternals.ts';
import { GameRoomChat } from './gameRoomChat.ts';
import { SeatCredentials } from './seatCredentials.ts';
import { echoOf, invalidMessage, refuseUnknownMessage, type GameClient } from './messages.ts';
import { DrawOfferState, GameState, LastMoveState, PlayerState, TakebackOfferState } from './schema/GameState.ts';


/** Close code telling clients the game moved to another node: join it again by id. */
export const CLOSE_GAME_MOVED = 4503;
const RECONNECT_SECONDS = 60;
/**
 * A correspondence game's room stays, with nobody in it, once its deadline is this close: the
 * sweeper opens rooms a minute ahead of their deadlines (src/workers/sweeper.ts), and such a room
 * must stay to let the flag fall.
 */
export const CORRESPONDENCE_DEADLINE_MARGIN_MS = 2 * 60_000;
// Per-socket message budget for players (DESIGN 2.3): 100 messages per 20 s.
const SOCKET_BUDGET = { messages: 100, windowMs: 20_000 };

export type GameRoomDeps = {
  host: LiveGameHost;
  authenticate: (token: string) => Promise<AuthUser>;
  /** Counts an authenticated socket's user as online until it leaves (friend lists). */
  hold?: (userId: string) => () => void;
  /** DESIGN 2.11: the rematch offers made after the game's end (its channel); resolves with the way to stop listening. */
  rematchOffers?: (gameId: string, listener: (offer: RematchOffer) => void) => Promise<() => void>;
  /** The games' chat (DESIGN 2.11): a message sent here is stored and published like a REST one. */
  chat: Pick<Chat, 'post' | 'listen'>;
  /** DESIGN 2.12: a socket lives no longer than the credential it joined with. */
  credentials: Pick<LiveCredentials, 'watch' | 'check'>;
};

/**
 * One live game: the actor that owns it. Board, clocks and rules live in GameActor (services);
 * this class only wires sockets, schema and the REST entry points to it.
 */
export class GameRoom extends Room<{ state: GameState; client: GameClient }> implements GameRoomApi {
  static deps: GameRoomDeps;

  live!: GameActor;
  override autoDispose = false;
  // Patches go out right after each change (broadcastPatch); the interval is only a backstop.
  override patchRate = 5000;
  // A hard flood guard (Colyseus drops the socket); the budget below answers politely first.
  override maxMessagesPerSecond = 200;
  private budgets = new WeakMap<Client, { count: number; resetAt: number }>();
  private readonly writes = new RoomWrites(this);
  private stopRematchOffers: (() => void) | undefined;
  private disposed = false;
  private chat!: GameRoomChat;
  private readonly seats = new SeatCredentials(this, () => GameRoom.deps.credentials);

  static override async onAuth(token: string, options: { token?: string }): Promise<{ user?: AuthUser }> {
    const bearer = token || options?.token;
    // No token: a spectator. A bad token is refused, so a player never silently becomes one.
    if (!bearer) return {};
    const user = await GameRoom.deps.authenticate(bearer);
    // DESIGN 2.12: a personal token plays (every command of the room) only with games:play.
    requireScope(user, 'games:play');
    return { user };
  }

  override async onCreate(options: { gameId?: string }): Promise<void> {
    const { host } = GameRoom.deps;
    // A room is keyed by the game's own (lower-case) id; any other spelling would be a second room of it.
    const gameId = parseId(options.gameId);
    if (!gameId || gameId !== options.gameId) throw roomRefusal(ROOM_REFUSED.NOT_ACTIVE);
    this.roomId = gameId;
    const live = await GameActor.open(host, gameId, {
      event: (event) => this.onGameEvent(event),
      lost: () => void this.disconnect(CLOSE_GAME_MOVED),
      presence: (news) => this.onPresence(news),
    });
    if (live === 'not_active') throw roomRefusal(ROOM_REFUSED.NOT_ACTIVE);
    if (live === 'lease_held') throw roomRefusal(ROOM_REFUSED.LEASE_HELD);
    this.live = live;
    host.register(live);
    this.restWhenIdle();
    this.state = this.initialState();
    this.writes.shareEncodeBuffers();

    for (const name of GAME_COMMAND_NAMES) this.onMessage(name, (client: GameClient, raw) => this.command(client, name, raw));
    this.chat = new GameRoomChat(GameRoom.deps.chat, gameId, () => this.clients as GameClient[]);
    this.onMessage('chat', (client: GameClient, raw) => this.chat.receive(client, raw, () => this.spend(client)));
    this.onMessage('*', refuseUnknownMessage);
  }

  override async onJoin(client: GameClient, _options: unknown, auth?: { user?: AuthUser }): Promise<void> {
    this.writes.ownFrames(client);
    const userId = auth?.user?.id;
    const color = userId ? this.live.colorOf(userId) : undefined;
    const playerChat = color !== undefined && gameReader(auth?.user) !== undefined;
    client.userData = { userId, color, playerChat, release: userId ? GameRoom.deps.hold?.(userId) : undefined };
    this.seats.follow(client, auth?.user);
    if (color) this.updateConnected(color);
    // A client that has joined hears every chat message published after it did.
    await this.chat.listen();
  }

  override async onDrop(client: GameClient): Promise<void> {
    const color = client.userData?.color;
    if (!color) return;
    // Colyseus has already taken the dropped client out of `clients`: only the seat's other tabs count.
    this.updateConnected(color);
    if (this.live.status === 'active') await this.seats.waitForReconnection(client, RECONNECT_SECONDS);
  }

  override async onReconnect(client: GameClient): Promise<void> {
    await this.seats.recheck(client); // a token that ended meanwhile is refused (UNAUTHORIZED)
    this.writes.ownFrames(client); // a reconnection comes as a new client object
    const color = client.userData?.color;
    if (color) this.updateConnected(color);
    void this.chat.listen();
  }

  override onLeave(client: GameClient): void {
    this.seats.forget(client);
    client.userData?.release?.();
    const color = client.userData?.color;
    if (color) this.updateConnected(color);
    if (this.clients.length === 0) this.chat.stop();
    if (this.live.status !== 'active' && this.clients.length === 0) void this.disconnect();
    else this.restWhenIdle();
  }

  override async onDispose(): Promise<void> {
    this.chat?.stop();
    this.seats.forgetAll();
    for (const client of this.clients as GameClient[]) client.userData?.release?.();
    this.disposed = true;
    this.stopRematchOffers?.();
    if (!this.live) return; // onCreate refused the game
    GameRoom.deps.host.unregister(this.live);
    await this.live.close(true);
  }

  // ---- REST entry point: the gateway's allow-list (src/gateway) -----------------------------

  /** A player's command from REST; `key` makes a retry (the client's or the gateway's) safe. */
  readonly apiCommand: GameRoomApi['apiCommand'] = ({ command, key }) => this.live.execute(command, key);

  // ---- internals ----------------------------------------------------------------------------

  /**
   * A player's message `name` (src/services/gameCommandCatalogue.ts): check the seat and the socket
   * budget → parse → run → answer `<name>:ok` or `error`. A command's `id` is its key: resent after
   * a reconnect (same session), it is answered again instead of acting twice.
   */
  private async command<N extends GameCommandName>(client: GameClient, name: N, raw: unknown): Promise<void> {
    // Read first: the frame was just read off the socket, and a move is timed from here (DESIGN 2.4).
    const receivedAt = GameRoom.deps.host.time.now();
    const echo = echoOf(raw);
    const userId = client.userData?.userId;
    if (!userId || !client.userData?.color) return client.send('error', { ...echo, code: 'NOT_A_PLAYER', message: 'Spectators cannot play' });
    if (!this.spend(client)) return client.send('error', { ...echo, code: 'RATE_LIMIT_EXCEEDED', message: 'Too many messages' });
    const parsed = payloadSchema(name).safeParse(raw ?? {});
    if (!parsed.success) return client.send('error', { ...echo, ...invalidMessage(parsed.error) });
    const key = 'id' in echo ? `socket:${client.sessionId}:${String(echo.id)}` : undefined;
    const reply = await this.live.execute(actorCommand(name, userId, parsed.data, receivedAt), key);
    const answered: `${GameCommandName}:ok` = `${name}:ok`;
    if (reply.ok) client.send(answered, { ...echo, ...reply.value });
    else client.send('error', { ...echo, code: reply.error.code, message: reply.error.message, details: reply.error.details });
  }

  /** A seat is connected while any of its clients is in the room; a dropped one waiting to reconnect is not. */
  private updateConnected(color: Color): void {
    const connected = this.clients.some((c) => (c as GameClient).userData?.color === color);
    if (this.state[color].connected === connected) return;
    this.state[color].connected = connected;
    // The claim count (DESIGN 2.11) starts when a seat has no client left and stops when one returns.
    this.live.notePresence(color, connected);
    this.broadcastPatch();
  }

  private spend(client: Client): boolean {
    const now = GameRoom.deps.host.time.now();
    let b = this.budgets.get(client);
    if (!b || now >= b.resetAt) this.budgets.set(client, (b = { count: 0, resetAt: now + SOCKET_BUDGET.windowMs }));
    return ++b.count <= SOCKET_BUDGET.messages;
  }

  private initialState(): GameState {
    const live = this.live;
    const s = new GameState();
    s.gameId = live.id;
    for (const color of ['white', 'black'] as const) {
      const seat = live.seat(color);
      const p = new PlayerState();
      p.id = seat.id;
      p.username = seat.username;
      p.rating = seat.rating;
      p.connected = false;
      s[color] = p;
    }
    s.lastMove = new LastMoveState();
    s.drawOffer = new DrawOfferState();
    s.takebackOffer = new TakebackOfferState();
    for (const san of live.game.sanList) s.moves.push(san);
    this.syncState(s);
    return s;
  }

  /** Copies what changes move by move from the live game into the schema. */
  private syncState(s: GameState): void {
    const live = this.live;
    s.status = live.status;
    s.fen = live.game.fen;
    s.turn = live.game.turn;
    const snap = live.chessClock.snapshot();
    s.white.remainingMs = snap.whiteMs;
    s.black.remainingMs = snap.blackMs;
    s.clockRunning = live.chessClock.running;
    // flagAt = turn start + the mover's time at turn start, so the turn start follows from it.
    const flagAt = live.chessClock.flagAt();
    s.turnStartedAt = flagAt === null ? 0 : flagAt - s[live.game.turn].remainingMs;
    const last = live.game.lastMove;
    if (last) {
      s.lastMove.from = last.from;
      s.lastMove.to = last.to;
      s.lastMove.san = last.san;
    }
    const offer = live.drawOffer;
    s.drawOffer.id = offer?.id ?? '';
    s.drawOffer.offeredBy = offer?.offeredBy ?? '';
    s.drawOffer.expiresAt = offer?.expiresAt ?? 0;
    const takeback = live.takebackOffer;
    s.takebackOffer.id = takeback?.id ?? '';
    s.takebackOffer.offeredBy = takeback?.offeredBy ?? '';
    s.takebackOffer.plies = takeback?.plies ?? 0;
    s.takebackOffer.expiresAt = takeback?.expiresAt ?? 0;
    s.result = live.ending?.result ?? '';
    s.winner = live.ending?.winner ?? '';
    s.termination = live.ending?.termination ?? (live.status === 'abandoned' ? 'aborted' : '');
    s.eventSeq = live.eventSeq;
    const firstMove = live.status === 'active' && live.game.moveCount < 2 ? live.state.firstMoveDeadline : null;
    s.firstMoveDeadline = firstMove ?? 0;
    s.white.claimableAt = live.status === 'active' ? (live.claimableAt('white') ?? 0) : 0;
    s.black.claimableAt = live.status === 'active' ? (live.claimableAt('black') ?? 0) : 0;
  }

  /**
   * While the room lingers after the end (clients still in it), a rematch asked for on any node
   * (REST) reaches them: the room listens to the game's channel for it, only then and only here.
   */
  private followRematchOffers(): void {
    const follow = GameRoom.deps.rematchOffers;
    if (!follow) return;
    void follow(this.live.id, (offer) => this.broadcast('rematch_offer', { game_id: offer.game_id, offered_by: offer.offered_by }))
      .then((stop) => {
        if (this.disposed) stop(); // disposed while subscribing
        else this.stopRematchOffers = stop;
      })
      .catch((err) => GameRoom.deps.host.log.warn({ err, gameId: this.live.id }, 'could not follow rematch offers'));
  }

  /** A player left or acted while gone (the claim count starts), or came back: the schema and a message to everyone here. */
  private onPresence(news: PresenceNews): void {
    this.syncState(this.state);
    // Not only a join or a leave: a player who acts by REST while gone starts the count again.
    this.broadcastPatch();
    if (news.type === 'opponent_gone') this.broadcast('opponent_gone', { color: news.color, claimable_at: news.claimable_at, v: news.v });
    else this.broadcast('opponent_back', { color: news.color, v: news.v });
  }

  /**
   * A correspondence game needs no actor while nobody is connected (DESIGN 2.11): its room lets
   * Colyseus dispose of it once no client is in it nor about to join (autoDispose), which releases
   * the lease, unless its deadline is near. A REST command on it, a join or the sweeper (a
   * deadline near) makes the room again from PostgreSQL. Looked at as the room opens, as a client
   * leaves and after every event (a move moves the deadline on).
   */
  private restWhenIdle(): void {
    const clock = this.live.chessClock;
    if (!clock.perMove) return;
    const flagAt = clock.flagAt();
    const near = flagAt !== null && flagAt - GameRoom.deps.host.time.now() <= CORRESPONDENCE_DEADLINE_MARGIN_MS;
    this.autoDispose = this.live.status === 'active' && !near;
  }

  private onGameEvent(event: GameEvent & { v: number }): void {
    this.writes.cork();
    if (event.type === 'move') this.state.moves.push(event.move.san);
    // A takeback leaves the moves it did not take back: the schema's list drops the rest.
    if (event.type === 'takeback') this.state.moves.splice(event.move_count, this.state.moves.length - event.move_count);
    this.syncState(this.state);
    this.broadcastPatch();
    if (event.type === 'takeback_offer') this.broadcast('takeback_offer', { takeback: event.takeback, v: event.v });
    if (event.type === 'takeback') {
      const { takeback_id, plies, fen, move_count, current_turn, times, v } = event;
      this.broadcast('takeback', { takeback_id, plies, fen, move_count, current_turn, times, v });
    }
    this.restWhenIdle();
    if (event.type === 'game_end') {
      this.broadcast('game_end', { ...event.result, status: event.status, abort_reason: event.abort_reason, v: event.v });
      // Clients have the final state; the room goes once they leave (or after a grace period).
      // `this.clock` is Colyseus's, the room's own timers (cleared as it disposes); the game's time is
      // `host.time`, its chess clock `live.chessClock`.
      if (this.clients.length === 0) void this.disconnect();
      else {
        this.clock.setTimeout(() => void this.disconnect(), 30_000);
        this.followRematchOffers();
      }
    }
  }
}
