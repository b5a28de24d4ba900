// What is known of a player beyond their profile (src/db/users.ts): whether the account is a bot
// (DESIGN 2.13), and what keeps it from becoming one.
import type { Queryable } from './pool.ts';

const ROW_LOCKS = { share: ' FOR SHARE', update: ' FOR NO KEY UPDATE' } as const;

/**
 * Whether the user is a bot account. `lock`: the row is locked so that an upgrade (which takes
 * it `update`) and what a bot may not do (`share`: an arena join) never both pass their checks.
 * NO KEY: the games that reference the user (their foreign keys' KEY SHARE) do not wait for it.
 */
export async function isBotAccount(db: Queryable, userId: string, lock?: keyof typeof ROW_LOCKS): Promise<boolean> {
  const { rows } = await db.query(`SELECT bot FROM users WHERE id = $1${lock ? ROW_LOCKS[lock] : ''}`, [userId]);
  return rows[0]?.bot === true;
}

/** What keeps an account from becoming a bot (DESIGN 2.13): a game played, an open seek, an arena it is in. */
export type BotBlockers = { played: boolean; seeking: boolean; inArena: boolean };

export async function findBotBlockers(db: Queryable, userId: string): Promise<BotBlockers> {
  const { rows } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM games WHERE (white_id = $1 OR black_id = $1) AND status IN ('active', 'finished')) AS played,
            EXISTS (SELECT 1 FROM games WHERE created_by = $1 AND kind = 'matchmaking' AND status = 'pending'
                      AND expires_at > now()) AS seeking,
            EXISTS (SELECT 1 FROM tournament_players p JOIN tournaments t ON t.id = p.tournament_id
                     WHERE p.user_id = $1 AND NOT p.withdrawn AND t.status <> 'finished') AS in_arena`,
    [userId],
  );
  return { played: rows[0].played, seeking: rows[0].seeking, inArena: rows[0].in_arena };
}

/** Makes the account a bot, for good. */
export async function markBot(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET bot = true, updated_at = now() WHERE id = $1', [userId]);
}
