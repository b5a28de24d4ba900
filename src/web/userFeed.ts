// The signed-in user's own realtime channel (`user:<id>`), one per tab, on every page. An arena
// pairs a waiting player as soon as their game ends, and a player who does not move in time is
// withdrawn (README, "Tournaments"): so `tournament_pairing` takes the player to their board
// from wherever they are in the app, as the lobby's `game_started` does for seeks and challenges.

import { subscribe, type Subscription } from './realtime.ts';
import { session } from './session.ts';

export type TournamentPairing = { tournament_id: string; game_id: string; color: 'white' | 'black'; opponent: { id: string; username: string } };

class UserFeed {
  private channel?: Subscription;
  private userId?: string;
  private pairingListeners = new Set<(p: TournamentPairing) => void>();

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
      },
      // The session ended (logout elsewhere): the session's own change reconnects or clears.
      onError: () => {
        this.channel = undefined;
      },
    });
  }

  onTournamentPairing(fn: (p: TournamentPairing) => void): () => void {
    this.pairingListeners.add(fn);
    return () => this.pairingListeners.delete(fn);
  }
}

export const userFeed = new UserFeed();
