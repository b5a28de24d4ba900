// Lichess's Board API (`board:play`) and Bot API (`bot:play`) on a game (DESIGN 2.13): its stream
// and its commands, the same under /api/board/game and /api/bot/game. Every command is one of the
// catalogue's (src/services/gameCommandCatalogue.ts) sent through the games service, so a move here
// is the move /v1 and the rooms make (same actor, rules, clocks, durability, idempotency); chat goes
// through the chat service. What is Lichess's here is only the wire: the UCI in the path, the
// yes/no verbs, `{"ok": true}`, and 400 for whatever the rules refuse.
import { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import { AppError, isAppError } from '../errors.ts';
import { OPERATION_LIMITS } from '../limits.ts';
import { ChatBody } from '../services/chatViews.ts';
import type { CommandPayload, GameCommandName } from '../services/gameCommandCatalogue.ts';
import { pendingTakeback } from '../services/gameReads.ts';
import type { GameDetail } from '../services/gameViews.ts';
import { findBotAccounts } from '../services/userEventGames.ts';
import type { LichessDeps } from './deps.ts';
import { refuseStream } from './errors.ts';
import type { GameFacts } from './gameState.ts';
import { openLichessGameStream } from './gameStream.ts';
import { lichessRoute, OK, STREAMED, type BareContext, type LichessContext, type LichessRoute } from './route.ts';
import { correspondenceSeek, realtimeSeek, SeekBody } from './seek.ts';

const UCI = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;
/** Lichess's yes/no path words (it also reads true/false). */
const ANSWERS: Record<string, boolean> = { yes: true, true: true, no: false, false: false };
/** An id no offer has: "no" when nothing is pending is judged by the rules like any answer. */
const NO_OFFER = '00000000-0000-0000-0000-000000000000';

const OfferingDrawQuery = z.object({
  offeringDraw: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
});

/** Lichess answers 400 to whatever the rules refuse; our FORBIDDEN (another's offer, the spectator room) is one such. */
function ruleRefusal(error: unknown): unknown {
  return isAppError(error) && error.code === 'FORBIDDEN' ? new AppError('VALIDATION_ERROR', error.message) : error;
}

/** The words of a refusal that Lichess answers with `{"ok": true}` (nothing was pending to decline). */
const nothingPending = (error: unknown) =>
  isAppError(error) && ['DRAW_OFFER_NOT_FOUND', 'DRAW_OFFER_NOT_PENDING', 'TAKEBACK_NOT_FOUND', 'TAKEBACK_NOT_PENDING'].includes(error.code);

export function gameRoutes(d: LichessDeps): LichessRoute[] {
  const { games, chat } = d.services;
  const deps = { pool: d.ctx.pool };

  /** A player's command, as /v1 sends it: the catalogue's name and payload, timed from when the request was read. */
  const command = <N extends GameCommandName>(c: BareContext<unknown, unknown>, name: N, payload: CommandPayload<N>) =>
    games.command(name, c.user!.id, c.params.id, payload, { receivedAt: c.receivedAt }).catch((error) => {
      throw ruleRefusal(error);
    });

  const answer = (word: string): boolean => {
    const yes = ANSWERS[word.toLowerCase()];
    if (yes === undefined) throw new AppError('VALIDATION_ERROR', `Answer yes or no, not ${word}`);
    return yes;
  };

  const stream = (c: LichessContext<unknown, unknown>) => {
    const realtime = d.streams();
    if (!realtime) throw new AppError('SERVICE_UNAVAILABLE', 'Streams are not served yet: try again');
    const facts = async (game: GameDetail): Promise<GameFacts> => ({
      takebackBy: game.status === 'active' ? (await pendingTakeback(deps, game.id))?.offeredBy : undefined,
      bots: await findBotAccounts(deps, [game.white_player?.id, game.black_player?.id].filter((id): id is string => id !== undefined)),
    });
    return openLichessGameStream({ realtime, facts, log: d.ctx.log }, { req: c.req, res: c.res, refuseWith: (error: unknown) => refuseStream(c.res, error) }, c.user!, c.params.id).then(() => STREAMED);
  };

  /**
   * Moves a user may send a minute on these paths: a bot plays instantly, and lichess-bot's two
   * random movers made 100 moves in under a minute of one bullet game, where /v1's makeMove (100 a
   * minute, for people) stopped them for 60 s. A move is taken only on its player's turn, so a
   * game's pace is its two players'; this cap is what one account's games may send together.
   */
  const LICHESS_MOVES = { name: 'lichessMove', points: 600 };

  const surface = (api: 'board' | 'bot', scope: Scope): LichessRoute[] => {
    const auth = { anyOf: [scope] } as const;
    const at = `/api/${api}/game/:id`;
    return [
      lichessRoute({ method: 'get', path: `/api/${api}/game/stream/:id`, auth, handler: stream }),
      lichessRoute({
        method: 'post',
        path: `${at}/move/:move`,
        auth,
        bare: true,
        query: OfferingDrawQuery,
        limit: LICHESS_MOVES,
        handler: async (c) => {
          const uci = UCI.exec(c.params.move.toLowerCase());
          if (!uci) throw new AppError('VALIDATION_ERROR', `Invalid UCI: ${c.params.move}`);
          const offering = c.query.offeringDraw === 'true';
          // With the opponent's offer pending, offering a draw agrees to it: the game ends drawn.
          if (offering && (await opponentOffers(c))) return (await command(c, 'offer_draw', {}), OK);
          await command(c, 'move', { from: uci[1], to: uci[2], promotion: (uci[3] ?? null) as 'q' | 'r' | 'b' | 'n' | null });
          // The offer goes with the move: a refusal of it (too soon after the last) leaves the move made.
          if (offering) await command(c, 'offer_draw', {}).catch((error) => d.ctx.log.debug({ err: error }, 'a draw offered with a move was refused'));
          return OK;
        },
      }),
      lichessRoute({ method: 'post', path: `${at}/resign`, auth, bare: true, handler: async (c) => (await command(c, 'resign', {}), OK) }),
      lichessRoute({ method: 'post', path: `${at}/abort`, auth, bare: true, handler: async (c) => (await command(c, 'abort', {}), OK) }),
      lichessRoute({
        method: 'post',
        path: `${at}/draw/:answer`,
        auth,
        bare: true,
        handler: async (c) => {
          if (answer(c.params.answer)) return (await command(c, 'offer_draw', {}), OK);
          const offer = (await games.getGame(c.user!.id, c.params.id)).draw_offer;
          await command(c, 'answer_draw', { offer_id: offer?.id ?? NO_OFFER, accept: false }).catch((error) => {
            if (!nothingPending(error)) throw error;
          });
          return OK;
        },
      }),
      lichessRoute({
        method: 'post',
        path: `${at}/takeback/:answer`,
        auth,
        bare: true,
        handler: async (c) => {
          const yes = answer(c.params.answer);
          const pending = await pendingTakeback(deps, c.params.id);
          // "yes" accepts the opponent's proposal, else proposes; "no" declines it (the rules judge either).
          if (yes && (!pending || pending.offeredBy === c.user!.id)) return (await command(c, 'takeback', {}), OK);
          await command(c, 'answer_takeback', { takeback_id: pending?.id ?? NO_OFFER, accept: yes }).catch((error) => {
            if (yes || !nothingPending(error)) throw error;
          });
          return OK;
        },
      }),
      lichessRoute({
        method: 'post',
        path: `${at}/chat`,
        auth,
        body: ChatBody,
        limit: { name: 'chat', points: OPERATION_LIMITS.chat },
        handler: async (c) => {
          await chat.post(c.user!.id, c.params.id, c.body, { playerToSpectators: true }).catch((error) => {
            throw ruleRefusal(error);
          });
          return OK;
        },
      }),
      lichessRoute({
        method: 'get',
        path: `${at}/chat`,
        auth,
        handler: async (c) => (await chat.list(c.user!.id, c.params.id, 'player')).map((m) => ({ text: m.text, user: m.user.username })),
      }),
    ];
  };

  /** Whether the opponent of the caller has a draw offer pending. */
  const opponentOffers = async (c: BareContext<unknown, unknown>) => {
    const offer = (await games.getGame(c.user!.id, c.params.id)).draw_offer;
    return offer?.status === 'pending' && offer.offered_by !== c.user!.id;
  };

  const board = { anyOf: ['board:play'] } as const;
  return [
    ...surface('board', 'board:play'),
    ...surface('bot', 'bot:play'),
    // The claims against an opponent who left: the Board API's only.
    lichessRoute({ method: 'post', path: '/api/board/game/:id/claim-victory', auth: board, bare: true, handler: async (c) => (await command(c, 'claim', { result: 'win' }), OK) }),
    lichessRoute({ method: 'post', path: '/api/board/game/:id/claim-draw', auth: board, bare: true, handler: async (c) => (await command(c, 'claim', { result: 'draw' }), OK) }),
    lichessRoute({
      method: 'post',
      path: '/api/board/seek',
      auth: board,
      body: SeekBody,
      limit: { name: 'matchmaking', points: OPERATION_LIMITS.matchmaking },
      handler: async (c) => {
        if (c.body.days !== undefined) return correspondenceSeek({ games }, c.user!, { ...c.body, days: c.body.days });
        const realtime = d.streams();
        if (!realtime) throw new AppError('SERVICE_UNAVAILABLE', 'Seeks are not served yet: try again');
        await realtimeSeek({ games, realtime, log: d.ctx.log }, { req: c.req, res: c.res, refuseWith: (error: unknown) => refuseStream(c.res, error) }, c.user!, c.body);
        return STREAMED;
      },
    }),
  ];
}

