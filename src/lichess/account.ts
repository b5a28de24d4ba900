// Lichess's account, user and bot reads (DESIGN 2.13) on Lichess's paths: the caller's profile
// and games in progress, a token test, a user's public data and status, the bot upgrade and the
// bots online; the game exports are in ./exports.ts. Each route is a few lines over the services,
// its answer built by the Lichess shapes of ./users.ts.
import { z } from 'zod';
import { SCOPES } from '../auth/scopes.ts';
import type { LichessDeps } from './deps.ts';
import { exportRoutes } from './exports.ts';
import { integer, commaList, flag } from './query.ts';
import { lichessRoute, OK, STREAMED, type LichessRoute } from './route.ts';
import { lichessId } from './shapes.ts';
import { formatOnlineBot, formatPlaying, formatUserExtended, formatUserStatus, type Playing, type User, type UserExtended, type UserStatus } from './users.ts';

/** Lichess tests at most this many tokens at once. */
export const MAX_TOKENS_TESTED = 1000;
/** And reads at most this many users' statuses. */
export const MAX_STATUS_IDS = 100;

/** `{<token>: {userId, scopes, expires} | null}`: scopes comma-separated, expiry in ms or null. */
export const TokenTest = z.record(
  z.string(),
  z.object({ userId: z.string(), scopes: z.string(), expires: z.number().int().nullable() }).nullable(),
);
export type TokenTest = z.infer<typeof TokenTest>;

const Tokens = z
  .string({ error: 'the body is the tokens, separated by commas' })
  .transform((s) => s.split(',').map((t) => t.trim()).filter((t) => t !== ''))
  .refine((tokens) => tokens.length > 0, 'the body is the tokens, separated by commas')
  .refine((tokens) => tokens.length <= MAX_TOKENS_TESTED, `at most ${MAX_TOKENS_TESTED} tokens at once`);

/** Any token: Lichess asks no particular scope of these reads. */
const ANY_TOKEN = { anyOf: SCOPES };

export function accountRoutes(d: LichessDeps): LichessRoute[] {
  const { services, ctx } = d;
  const publicUrl = ctx.config.publicUrl;
  return [
    lichessRoute({
      method: 'get',
      path: '/api/account',
      auth: ANY_TOKEN,
      // The caller is seen by this very request: seenAt is now, whether or not the minute's
      // presence write has landed (a fresh bot asking for its account would otherwise have none).
      handler: async ({ user }): Promise<UserExtended> => {
        const card = await services.players.getCard(user!.id);
        return formatUserExtended({ ...card, activity: { ...card.activity, lastSeenAt: new Date(ctx.clock.now()) } }, publicUrl);
      },
    }),
    lichessRoute({
      method: 'get',
      path: '/api/account/playing',
      auth: ANY_TOKEN,
      query: z.object({ nb: integer(1, 50).default(9) }),
      handler: async ({ user, query }): Promise<Playing> =>
        formatPlaying(await services.players.playing(user!.id), user!.id, ctx.clock.now(), query.nb),
    }),
    lichessRoute({
      method: 'post',
      path: '/api/token/test',
      auth: 'none',
      textBody: true,
      body: Tokens,
      handler: async ({ body }): Promise<TokenTest> => {
        const described = await services.personalTokens.describe(body);
        return Object.fromEntries(
          [...described].map(([token, t]) => [
            token,
            t && { userId: lichessId(t.username), scopes: t.scopes.join(','), expires: t.expiresAt?.getTime() ?? null },
          ]),
        );
      },
    }),
    lichessRoute({
      method: 'get',
      path: '/api/user/:username',
      auth: 'optional',
      // Lichess's trophies, rank and fideId: there are none to add here.
      query: z.object({ profile: flag(true), trophies: flag(false), rank: flag(false), fideId: flag(false) }),
      handler: async ({ params, query }): Promise<UserExtended> => {
        const user = formatUserExtended(await services.players.getCardByUsername(params.username), publicUrl);
        if (!query.profile) delete user.profile;
        return user;
      },
    }),
    lichessRoute({
      method: 'get',
      path: '/api/users/status',
      auth: 'none',
      // withSignal and withGameMetas are Lichess's too: no signal is measured here, the game's id is what there is.
      query: z.object({
        ids: commaList(MAX_STATUS_IDS, 'user ids'),
        withGameIds: flag(false),
        withSignal: flag(false),
        withGameMetas: flag(false),
      }),
      handler: async ({ query }): Promise<UserStatus[]> =>
        (await services.players.statuses(query.ids)).map((s) => formatUserStatus(s, query.withGameIds || query.withGameMetas)),
    }),
    lichessRoute({
      method: 'post',
      path: '/api/bot/account/upgrade',
      auth: { anyOf: ['bot:play'] },
      handler: async ({ user }) => {
        await services.bots.upgrade(user!.id);
        return OK;
      },
    }),
    lichessRoute({
      method: 'get',
      path: '/api/bot/online',
      auth: 'none',
      query: z.object({ nb: integer(1, 512).default(100) }),
      handler: async ({ res, query }) => {
        const bots = await services.bots.online(query.nb);
        res.status(200).set({ 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' });
        const lines: User[] = bots.map(formatOnlineBot);
        res.end(lines.map((b) => `${JSON.stringify(b)}\n`).join(''));
        return STREAMED;
      },
    }),
    ...exportRoutes(d),
  ];
}
