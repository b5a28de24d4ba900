// /play/{id}: one board for players and spectators. Everyone first subscribes to the game's
// realtime channel (public; a pending game shows only to its players). A player of an active
// game then joins its room and plays there (moves, draws, resignation); a spectator keeps
// following the channel. A reload or a dropped connection comes back the same way.

import type { Room } from '@colyseus/sdk';
import { download, get, plainCode, plainError, post } from '../api.ts';
import { joinErrorCode, rooms } from '../colyseus.ts';
import { fill, h, setText, userLink } from '../dom.ts';
import { ChatPanel } from './chat.ts';
import { describePly, MoveHistory } from './history.ts';
import { drawFirstMove } from './firstMove.ts';
import { fitBoardToWindow } from './fit.ts';
import { drawMoves, noGame, skeleton } from './layout.ts';
import { Premove } from './premove.ts';
import { ProvisionalRatings } from './provisional.ts';
import { followRematchAsSpectator, RematchPanel } from './rematch.ts';
import { subscribe, type Subscription } from '../realtime.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { playSound } from '../sound.ts';
import { describeKind } from '../timeControl.ts';
import { userFeed } from '../userFeed.ts';
import type { ChatMessage, ChatRoom, Color, GameDetail, GameSummary } from '../types/api.ts';
import { Board, type BoardMove } from './board.ts';
import { formatClock, remainingMs, ServerTime, speakClock } from './clock.ts';
import { applyChannel, colorOf, describeEnd, endGame, fromDetail, fromRoom, type GameModel, type RoomState } from './model.ts';
import { parseTypedMove } from './typedMove.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const opposite = (c: Color): Color => (c === 'white' ? 'black' : 'white');
/** How long before its access token expires a room socket is replaced (session.ts refreshes within a minute of it). */
const ROTATE_BEFORE_EXPIRY_MS = 45_000;

export async function playPage(ctx: PageContext & { go: (path: string) => void }): Promise<void> {
  const id = ctx.params.id.toLowerCase();
  if (!UUID.test(id)) return noGame(ctx.root);
  const me = session.user();
  const time = new ServerTime();
  const chat = new ChatPanel(id);
  const ui = skeleton(chat.el);
  ctx.root.append(ui.page);
  const boardFit = fitBoardToWindow(ui.page, ui.area, [ui.top, ui.bottom]);
  ctx.cleanup(boardFit.stop);

  let game: GameModel | undefined;
  let room: Room | undefined;
  let joining = false;
  let board: Board | undefined;
  let channel: Subscription | undefined;
  let commandId = 0;
  let confirmResign = false;
  let announcedPly = -1;
  let pendingShown = false;
  let rejoining = false;
  let sawActive = false;
  /** The draw offer this player made (and the ply it was made at), until it is answered. */
  let myOffer: { id: string; ply: number } | undefined;
  const baseTitle = document.title;

  const say = (text: string, urgent = false) => {
    ui.status.setAttribute('role', urgent ? 'alert' : 'status');
    setText(ui.status, text);
  };

  // ---- sources -------------------------------------------------------------------------------

  let channelDropped = false;
  const startChannel = () => {
    channel?.close();
    channel = subscribe(`game:${id}`, {
      token: session.accessToken,
      onMessage: (m) => {
        if (room) return; // the room has the game now
        if (m.type === 'chat') return chat.receive(m.message as ChatMessage);
        if (typeof m.ts === 'number') time.observe(m.ts);
        if (m.type !== 'state' && !game) return;
        game = applyChannel(game!, m);
        update();
        void maybeJoin();
      },
      onError: (code, message) => {
        if (room) return;
        if (code === 'GAME_NOT_FOUND') return noGame(ctx.root);
        say(message, true);
      },
      onStatus: (connected) => {
        ui.page.classList.toggle('offline', !connected && !room);
        // Live chat is not replayed: what was said meanwhile is read again.
        if (connected && channelDropped) chat.reload();
        channelDropped = !connected;
      },
    });
  };

  const maybeJoin = async () => {
    if (!game || room || joining || game.status !== 'active' || !colorOf(game, me?.id)) return;
    joining = true;
    try {
      for (let attempt = 0; attempt < 8 && !ctx.signal.aborted; attempt++) {
        try {
          const token = await session.accessToken();
          const joined = await rooms.joinById(id, { token });
          if (ctx.signal.aborted) return void joined.leave();
          return wireRoom(joined);
        } catch (error) {
          const code = joinErrorCode(error);
          if (code === 'GAME_NOT_ACTIVE') return; // it ended meanwhile: the channel says how
          if (code === 'UNAUTHORIZED') await session.renew();
          // The room is being opened (just accepted) or moving between nodes: shortly.
          await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
        }
      }
      say('Could not join the game. Reload the page to try again.', true);
    } finally {
      joining = false;
    }
  };

  /**
   * A room socket lives no longer than the access token it joined with (DESIGN 2.12): shortly
   * before that token expires the page joins again with a fresh one, and only then leaves the old
   * socket, so the seat never has no client (no `opponent_gone`, no claim count).
   */
  let rotation: ReturnType<typeof setTimeout> | undefined;
  ctx.cleanup(() => clearTimeout(rotation));
  const rotateBeforeExpiry = (r: Room) => {
    clearTimeout(rotation);
    const expiresAt = session.get()?.expiresAt;
    if (!expiresAt) return;
    rotation = setTimeout(async () => {
      if (room !== r || ctx.signal.aborted || game?.status !== 'active') return;
      try {
        const joined = await rooms.joinById(id, { token: await session.accessToken() });
        if (room !== r || ctx.signal.aborted) return void joined.leave();
        wireRoom(joined);
        void r.leave();
      } catch {
        // The old socket ends at the token's expiry and the page rejoins as after a drop.
      }
    }, Math.max(0, expiresAt - ROTATE_BEFORE_EXPIRY_MS - Date.now()));
  };

  const wireRoom = (r: Room) => {
    room = r;
    rotateBeforeExpiry(r);
    if (rejoining) {
      say('Reconnected.');
      chat.reload();
    }
    rejoining = false;
    channel?.close();
    channel = undefined;
    let lastTurnStart = 0;
    r.onStateChange((state: RoomState) => {
      if (room !== r) return; // a socket being left after a rotation
      if (state.turnStartedAt !== lastTurnStart) {
        lastTurnStart = state.turnStartedAt;
        time.observe(state.turnStartedAt);
      }
      game = fromRoom(game!, state);
      update();
    });
    r.onMessage('game_end', (e: Parameters<typeof endGame>[1]) => {
      game = endGame(game!, e, time.now());
      update();
    });
    r.onMessage('error', (e: { code: string; message: string }) => {
      say(plainCode(e.code, e.message), true);
      board?.reset();
      update(true);
    });
    for (const ok of ['move:ok', 'resign:ok', 'offer_draw:ok', 'answer_draw:ok', 'abort:ok', 'claim:ok', 'takeback:ok', 'answer_takeback:ok', 'chat:ok']) r.onMessage(ok, () => {});
    // The state carries the claim count (claimableAt); these say it to everyone in the room.
    r.onMessage('opponent_gone', () => {});
    r.onMessage('opponent_back', () => {});
    r.onMessage('chat', (m: { message: ChatMessage }) => room === r && chat.receive(m.message));
    r.onMessage('rematch_offer', (m: { game_id: string; offered_by: string }) => {
      game = { ...game!, rematch: { game_id: m.game_id, offered_by: m.offered_by, status: 'pending' } };
      update();
    });
    r.onMessage('takeback_offer', (m: { takeback: { offered_by: string; status: string } }) => {
      if (room !== r || m.takeback.offered_by !== me?.id) return;
      if (m.takeback.status === 'declined') say('Your opponent declined the takeback.');
      else if (m.takeback.status === 'expired') say('Your takeback proposal lapsed.');
    });
    // The status line says it (update(), as for a spectator); a queued premove was for a position gone.
    r.onMessage('takeback', () => room === r && premove.set(undefined));
    r.onDrop(() => say('Connection lost: reconnecting…', true));
    r.onReconnect(() => {
      say('Reconnected.');
      chat.reload();
    });
    r.onLeave((code: number) => {
      if (room !== r) return; // left on purpose after a rotation
      room = undefined;
      if (ctx.signal.aborted) return;
      // Moved to another node (4503), or reconnection gave up: follow the game again and rejoin.
      if (game?.status === 'active') {
        rejoining = true;
        say(code === 4503 ? 'The game moved; rejoining…' : 'Connection lost: rejoining…', true);
      }
      update();
      startChannel();
    });
  };

  // ---- actions -------------------------------------------------------------------------------

  const send = (type: string, payload: object = {}) => room?.send(type, { ...payload, id: ++commandId });

  const play = (move: BoardMove) => {
    if (!room) return say('Not connected to the game yet.', true);
    board?.disable();
    send('move', move);
  };

  const premove = new Premove({ line: ui.premove, boardBox: ui.board, mark: (m) => board?.showPremove(m) });
  /** The premove, now that it is this player's turn: played if it is legal here, else dropped. */
  const playPremove = (g: GameModel) => {
    const taken = premove.take(g.fen);
    if (taken && !taken.legal) say('Your premove was not legal any more.');
    else if (taken) play(taken.move);
  };

  const history = new MoveHistory(ui, () => update());
  ctx.cleanup(history.listen());
  // The board takes no move while it shows an earlier position: a click on it goes back to the
  // game as it is (as on Lichess), where the next click plays.
  ui.board.addEventListener('click', () => {
    if (!history.live) history.toLive();
  });

  ui.typed.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!game) return;
    const parsed = parseTypedMove(game.fen, ui.typedInput.value);
    if (!parsed.ok) return say(parsed.error, true);
    if (game.turn !== colorOf(game, me?.id)) return say('It is not your turn.', true);
    ui.typedInput.value = '';
    say(`You play ${parsed.san}.`);
    play(parsed.move);
  });

  ui.resign.addEventListener('click', () => {
    if (!confirmResign) {
      confirmResign = true;
      setText(ui.resign, 'Confirm resignation');
      setTimeout(() => {
        confirmResign = false;
        setText(ui.resign, 'Resign');
      }, 4000);
      return;
    }
    confirmResign = false;
    setText(ui.resign, 'Resign');
    send('resign');
  });
  ui.offerDraw.addEventListener('click', () => send('offer_draw'));
  ui.abort.addEventListener('click', () => send('abort'));
  ui.takeback.addEventListener('click', () => send('takeback'));
  ui.acceptTakeback.addEventListener('click', () => game?.takebackOffer && send('answer_takeback', { takeback_id: game.takebackOffer.id, accept: true }));
  ui.declineTakeback.addEventListener('click', () => game?.takebackOffer && send('answer_takeback', { takeback_id: game.takebackOffer.id, accept: false }));
  ctx.cleanup(() => (document.title = baseTitle));
  ui.acceptDraw.addEventListener('click', () => game?.drawOffer && send('answer_draw', { offer_id: game.drawOffer.id, accept: true }));
  ui.declineDraw.addEventListener('click', () => game?.drawOffer && send('answer_draw', { offer_id: game.drawOffer.id, accept: false }));
  ui.flip.addEventListener('click', () => {
    orientation = opposite(orientation);
    board?.destroy();
    board = undefined;
    update(true);
  });

  // ---- drawing -------------------------------------------------------------------------------

  let orientation: Color = 'white';

  const update = (force = false) => {
    // A room still delivers what was on its way while it is being left (the page was left at
    // the end of an arena game): nothing is drawn any more.
    if (!game || ctx.signal.aborted) return;
    const g = game;
    const mine = colorOf(g, me?.id);
    if (!board) {
      if (mine && !force) orientation = mine;
      board = new Board(ui.board, { orientation, fen: g.fen, onMove: play, onPremove: (m) => premove.set(m) });
      board.showPremove(premove.queued);
    }
    ui.board.setAttribute('aria-label', `Chessboard${mine ? `, you play ${mine}` : ''}; ${g.turn} to move`);
    const active = g.status === 'active';
    history.setMoves(g.sans);
    const shown = history.shown();
    const myTurn = active && !!room && !!mine && mine === g.turn;
    if (!shown) board.set(g.fen, g.lastMove, myTurn ? mine : undefined, active && !!room && !!mine && !myTurn ? mine : undefined);
    else board.set(shown.fen, shown.lastMove, undefined);
    if (!active) {
      board.disable();
      if (premove.queued) premove.set(undefined);
    }
    if (!shown && myTurn && premove.queued) playPremove(g);
    // The tab says whose turn it is when the page is not looked at.
    document.title = myTurn ? `▶ Your turn · ${baseTitle}` : baseTitle;
    drawOfferNews(g, active);

    setText(ui.title, g.white && g.black ? `${g.white.username} vs ${g.black.username}` : 'Game');
    const tc = g.timeControl;
    setText(ui.info, describeKind(kindOf(g)));
    const top = opposite(orientation);
    drawPlayer(ui.top, g, top);
    drawPlayer(ui.bottom, g, orientation);
    drawMoves(ui.moves, g.sans);
    history.draw();
    tick();

    // The opponent's move, for screen readers; a takeback says so (the move it names is gone).
    if (g.sans.length !== announcedPly) {
      const ply = g.sans.length;
      if (announcedPly >= 0 && ply > announcedPly) {
        const mover: Color = ply % 2 === 1 ? 'white' : 'black';
        if (mover !== mine) say(`${mover === 'white' ? 'White' : 'Black'} played ${g.sans[ply - 1]}.`);
        playSound(g.sans[ply - 1].includes('x') ? 'capture' : 'move');
      } else if (announcedPly >= 0 && ply < announcedPly) {
        say(describeTakeback(announcedPly - ply, g.sans));
      }
      announcedPly = ply;
    }

    const playing = active && !!mine && !!room; // moves go through the room
    ui.controls.hidden = !playing;
    ui.typed.hidden = !playing;
    // Correspondence has no first-move deadline: the first move has the whole period.
    ui.hint.hidden = !(active && g.sans.length < 2) || tc.category === 'correspondence';
    boardFit.fit();
    const offer = g.drawOffer;
    ui.offerDraw.disabled = !!offer;
    ui.drawOffer.hidden = !(playing && offer && offer.offeredBy !== me?.id);
    setText(ui.offerDraw, offer && offer.offeredBy === me?.id ? 'Draw offered' : 'Offer draw');
    // Abort until both sides have moved; a takeback once it would leave both first moves.
    ui.abort.hidden = g.sans.length >= 2;
    ui.takeback.hidden = g.sans.length < 3 || !!g.tournamentId;
    const takeback = g.takebackOffer;
    ui.takeback.disabled = !!takeback;
    setText(ui.takeback, takeback && takeback.offeredBy === me?.id ? 'Takeback proposed' : 'Takeback');
    ui.takebackOffer.hidden = !(playing && takeback && takeback.offeredBy !== me?.id);
    if (takeback) setText(ui.takebackText, takeback.plies === 1 ? 'Your opponent asks to take back their last move.' : 'Your opponent asks to take back their last move and your reply.');
    drawChat(g, mine);

    // An arena's game that ends here keeps its final position on the board; the next pairing
    // (the arena pairs a free player within seconds) is announced here and taken a few seconds
    // later, or at once with the button (README, "Web app").
    if (active) sawActive = true;
    else if (sawActive && (g.status === 'finished' || g.status === 'abandoned')) {
      sawActive = false;
      playSound('end');
      if (mine && g.tournamentId) holdNextPairing(g.tournamentId);
    }

    followRematch(g, mine);
    if (g.status === 'pending') void showPending(g);
    ui.pending.hidden = g.status !== 'pending';
    ui.end.hidden = active || g.status === 'pending';
    if (!ui.end.hidden) drawEnd(g);
    rematch.draw(g, mine);
  };

  /** A player sees the player room (and the spectators' once the game is over); anyone else signed in the spectators'. */
  const drawChat = (g: GameModel, mine: Color | undefined) => {
    const over = g.status === 'finished' || g.status === 'abandoned';
    const rooms: ChatRoom[] = !me ? [] : mine ? (over ? ['player', 'spectator'] : ['player']) : ['spectator'];
    chat.setRooms(rooms, !!mine);
    chat.setLive(!!room || !over || rooms.length === 0);
  };

  // ---- after the end: the rematch --------------------------------------------------------------

  const rematch = new RematchPanel(ui.rematch, {
    gameId: id,
    me,
    changed: (r) => {
      if (!game) return;
      game = { ...game, rematch: r };
      update();
    },
    go: (gameId) => {
      if (!ctx.signal.aborted && location.pathname !== `/play/${gameId}`) ctx.go(`/play/${gameId}`);
    },
    say,
  });
  // The opponent's ask and their answer to ours come on the user's channel (the room may be gone).
  ctx.cleanup(userFeed.onMessage((m) => rematch.news(m, game?.rematch)));

  /** A spectator of a finished game, signed in or not, follows the players to their rematch (rematch.ts). */
  let followingRematch = false;
  const followRematch = (g: GameModel, mine: Color | undefined) => {
    if (followingRematch || mine || g.status !== 'finished' || g.tournamentId) return;
    followingRematch = true;
    ctx.cleanup(followRematchAsSpectator(id, (gameId) => {
      if (!ctx.signal.aborted) ctx.go(`/play/${gameId}`);
    }));
  };

  /** The player's own draw offer answered: accepted ends the game; declined is said here. */
  const drawOfferNews = (g: GameModel, active: boolean) => {
    const offer = g.drawOffer;
    if (offer && offer.offeredBy === me?.id) {
      if (myOffer?.id !== offer.id) myOffer = { id: offer.id, ply: g.sans.length };
    } else if (myOffer && !offer) {
      // Still playing: it was not accepted. Moving instead of answering declines it too.
      if (active) say(g.sans.length > myOffer.ply ? 'Your opponent played on: your draw offer is declined.' : 'Your draw offer was declined.');
      myOffer = undefined;
    }
  };

  let nextGame: ReturnType<typeof setTimeout> | undefined;
  ctx.cleanup(() => clearTimeout(nextGame));
  const holdNextPairing = (tournamentId: string) => {
    ctx.cleanup(userFeed.holdPairings((p) => {
      if (p.tournament_id !== tournamentId || ctx.signal.aborted) return false;
      const go = () => ctx.go(`/play/${p.game_id}`);
      fill(ui.next, `Your next game, against ${p.opponent.username}, is ready: you go there in 5 seconds. `,
        h('button', { type: 'button', class: 'primary', onclick: go }, 'Go now'));
      ui.next.hidden = false;
      nextGame = setTimeout(go, 5000);
      return true;
    }));
  };

  let claimShown = '';
  /** The opponent left the room: how long until a claim, then the claim buttons. */
  const drawClaim = (now: number) => {
    const g = game!;
    const mine = colorOf(g, me?.id);
    const from = mine && room && g.status === 'active' ? g.claimableAt[opposite(mine)] : 0;
    const phase = !from ? 'none' : now >= from ? 'ready' : 'counting';
    ui.claim.hidden = phase === 'none';
    if (phase === 'counting') {
      const s = Math.ceil((from - now) / 1000);
      setText(ui.claim, `Your opponent left the game. You can claim victory in ${s} second${s === 1 ? '' : 's'} if they do not come back.`);
    } else if (phase === 'ready' && claimShown !== 'ready') {
      fill(ui.claim, h('p', null, 'Your opponent left the game.'),
        h('button', { type: 'button', class: 'primary', onclick: () => send('claim', { result: 'win' }) }, 'Claim victory'), ' ',
        h('button', { type: 'button', onclick: () => send('claim', { result: 'draw' }) }, 'Claim draw'));
    }
    claimShown = phase;
  };

  const tick = () => {
    if (!game) return;
    const now = time.now();
    drawClaim(now);
    drawFirstMove({ g: game, now, lines: [[ui.top, opposite(orientation)], [ui.bottom, orientation]], hint: ui.hint, mine: colorOf(game, me?.id) });
    for (const [el, color] of [[ui.top, opposite(orientation)], [ui.bottom, orientation]] as const) {
      const clock = el.querySelector('.clock')!;
      const ms = remainingMs(game.clock, color, now);
      setText(clock, formatClock(ms));
      clock.setAttribute('aria-label', `${color === 'white' ? 'White' : 'Black'}'s clock: ${speakClock(ms)}`);
      const running = game.status === 'active' && game.clock.running && game.turn === color;
      clock.classList.toggle('running', running);
      clock.classList.toggle('low', ms < 10_000 && game.status === 'active');
    }
  };
  const ticker = setInterval(tick, 100);
  ctx.cleanup(() => clearInterval(ticker));

  const provisional = new ProvisionalRatings(!!me, () => update());

  const drawPlayer = (el: HTMLElement, g: GameModel, color: Color) => {
    const p = g[color];
    provisional.lookUp(g, ctx.signal);
    const change = g.ratingChanges && g.status === 'finished' ? g.ratingChanges[color] : undefined;
    fill(
      el.querySelector('.who')!,
      h('span', { class: `piece-dot ${color}`, 'aria-hidden': 'true' }),
      h('span', { class: 'name' }, p ? userLink(p.username) : 'waiting…'),
      p ? h('span', { class: 'rating' }, String(p.rating), provisional.mark(p.id, g)) : null,
      change !== undefined ? h('span', { class: change >= 0 ? 'gain' : 'loss' }, change >= 0 ? `+${change}` : `−${-change}`) : null,
      // A seat's `connected` comes with the room's state; a spectator learns it from `opponent_gone`.
      (p?.connected === false || g.claimableAt[color] > 0) && g.status === 'active' ? h('span', { class: 'away', title: 'disconnected' }, 'away') : null,
    );
  };

  const drawEnd = (g: GameModel) => {
    const text = describeEnd(g);
    const changes = g.ratingChanges && g.status === 'finished' && g.white && g.black
      ? ` · ${g.white.username} ${sign(g.ratingChanges.white)}, ${g.black.username} ${sign(g.ratingChanges.black)}`
      : '';
    fill(
      ui.end,
      h('p', { class: 'result', role: 'status' }, h('strong', null, g.result ?? ''), ' ', text, changes),
      h(
        'p',
        { class: 'actions' },
        g.tournamentId ? h('a', { class: 'button primary', href: `/tournaments/${g.tournamentId}` }, 'Back to the tournament') : null,
        g.status === 'finished' ? h('a', { class: 'button', href: `/analysis/${g.id}` }, 'Analysis') : null,
        // A challenge declined or a game aborted before a move has nothing to download.
        me && g.sans.length > 0 ? h('button', { type: 'button', onclick: () => void download(`/games/${g.id}/pgn`, `game-${g.id}.pgn`).catch((e) => say(e.message, true)) }, 'Download PGN') : null,
        h('a', { class: 'button', href: '/' }, 'Back to the lobby'),
      ),
    );
    board?.disable();
  };

  const showPending = async (g: GameModel) => {
    if (pendingShown) return;
    pendingShown = true;
    let summary: GameSummary | undefined;
    try {
      summary = (await get<GameSummary[]>('/games?status=pending&limit=100')).find((x) => x.id === g.id);
    } catch {
      // shown below as waiting
    }
    const opponent = summary ? (summary.white_player?.id === me?.id ? summary.black_player : summary.white_player) : undefined;
    const what = describeKind(kindOf(g));
    const act = (path: string) => async () => {
      try {
        const detail = await post<GameDetail>(`/games/${g.id}/${path}`);
        if (path === 'accept' && detail?.status === 'active') {
          game = fromDetail(detail, time.now());
          update();
          void maybeJoin();
        } else ctx.go('/');
      } catch (e) {
        say(plainError(e), true);
      }
    };
    if (summary?.direction === 'incoming') {
      fill(ui.pending, h('p', null, `${opponent?.username ?? 'Someone'} challenges you to a ${what} game.`),
        h('p', { class: 'actions' }, h('button', { class: 'primary', type: 'button', onclick: act('accept') }, 'Accept'), h('button', { type: 'button', onclick: act('decline') }, 'Decline')));
    } else {
      const waitingFor = opponent ? `Waiting for ${opponent.username} to accept your ${what} challenge…` : `Looking for an opponent: ${what}…`;
      fill(ui.pending, h('p', null, waitingFor), h('p', null, 'Invite link: ', h('code', null, location.href)),
        h('p', { class: 'actions' }, h('button', { type: 'button', onclick: act('cancel') }, 'Cancel')));
    }
  };

  ctx.cleanup(() => {
    chat.stop();
    channel?.close();
    void room?.leave();
    board?.destroy();
  });
  startChannel();
}

const sign = (n: number) => (n >= 0 ? `+${n}` : `−${-n}`);

/** The status line after a takeback: what happened, and the move now last (never one taken back). */
function describeTakeback(plies: number, sans: readonly string[]): string {
  const what = plies === 1 ? 'the last move was taken back' : `the last ${plies} moves were taken back`;
  return `Takeback: ${what}. The game goes on from ${describePly(sans, sans.length)}.`;
}

const kindOf = (g: GameModel) => {
  const tc = g.timeControl;
  return { time_control: tc.category, initial_time: tc.initial, increment: tc.increment, days_per_move: tc.days, rated: tc.rated };
};
