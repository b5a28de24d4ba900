// The statuses the API shows and filters by, as const arrays: the zod enums of the routes and
// views and the records' types of the repositories come from these, so neither side owns them.

export const GAME_STATUSES = ['pending', 'active', 'finished', 'abandoned'] as const;
export type GameStatus = (typeof GAME_STATUSES)[number];

export const DRAW_OFFER_STATUSES = ['pending', 'accepted', 'declined', 'expired'] as const;
export type DrawOfferStatus = (typeof DRAW_OFFER_STATUSES)[number];

export const TOURNAMENT_STATUSES = ['upcoming', 'running', 'finished'] as const;
export type TournamentStatus = (typeof TOURNAMENT_STATUSES)[number];

/** A user's friend list, filtered: accepted friends, or requests received or sent. */
export const FRIEND_STATUSES = ['friends', 'incoming', 'outgoing'] as const;
export type FriendStatus = (typeof FRIEND_STATUSES)[number];

/**
 * Why the challenged player declined a challenge (DESIGN 2.13: Lichess's reasons, told to the
 * challenger); a decline without one is `generic`.
 */
export const DECLINE_REASONS = ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'rated', 'casual', 'standard', 'variant', 'noBot', 'onlyBot'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];
