// The signed-in user's own realtime channel (`user:<id>`), one per tab, on every page. An arena
// pairs a waiting player as soon as their game ends, and a player who does not move in time is
// withdrawn (README, "Tournaments"): so `tournament_pairing` takes the player to their board
// from wherever they are in the app, as the lobby's `game_started` does for seeks and challenges.

import { subscribe, type ChannelMessage, type Subscription } from './realtime.ts';
import { session } from './session.ts';

export type TournamentPairing = { tournament_id: string; game_id: string; color: 'white' | 'black'; opponent: { id: string; username: string } };

class UserFeed {
  private channel?: Subscription;
  private userId?: string;
  private pairingListeners = new Set<(p: TournamentPairing) => void>();
  private listeners = new Set<(m: ChannelMessage) => void>();

  /** Follows the current user's channel (or none when signed out); again after a sign-in. */
  connect(): void {
    const id = session.user()?.id;
    if (id === this.userId && this.channel) return;
    this.channel?.close();
    this.channel = undefined;
    this.userId = id;
    if (!id) return;
    this.channel = subscribe(`user:${id}`, {
      token: session.accessToken,
      onMessage: (m) => {
        if (m.type === 'tournament_pairing') for (const l of this.pairingListeners) l(m as unknown as TournamentPairing);
        for (const l of this.listeners) l(m);
      },
      // The session ended (logout elsewhere): the session's own change reconnects or clears.
      onError: () => {
        this.channel = undefined;
      },
    });
  }

  /** Every message of the channel (friend requests, challenges declined, …). */
  onMessage(fn: (m: ChannelMessage) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private hold?: (p: TournamentPairing) => boolean;

  /**
   * While a page holds pairings (a finished arena game's board, which keeps its final position in
   * view a few seconds), it is told first and may take the player on itself.
   */
  holdPairings(fn: (p: TournamentPairing) => boolean): () => void {
    this.hold = fn;
    return () => {
      if (this.hold === fn) this.hold = undefined;
    };
  }

  /** Whether a page took the pairing on (else the app goes to the board at once). */
  deferPairing(p: TournamentPairing): boolean {
    return this.hold?.(p) ?? false;
  }

  onTournamentPairing(fn: (p: TournamentPairing) => void): () => void {
    this.pairingListeners.add(fn);
    return () => this.pairingListeners.delete(fn);
  }
}

export const userFeed = new UserFeed();
