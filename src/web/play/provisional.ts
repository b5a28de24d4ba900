// The '?' after a player's provisional rating on the board page (issue 37: a first rated game
// moved a rating by ±242 with nothing to say it could). The game's view carries each player's
// rating but not whether it is provisional; their profiles do (`provisional`), as of now, which
// for a game being played is as of the game. Read once per page, signed in only (the route needs
// a token).

import { get } from '../api.ts';
import { provisionalMark, type Child } from '../dom.ts';
import type { PublicUser } from '../types/api.ts';
import type { GameModel } from './model.ts';

export class ProvisionalRatings {
  private asked = false;
  private readonly byPlayer = new Map<string, PublicUser['provisional']>();

  /** `changed`: a profile said something; the page draws the players again. */
  constructor(
    private readonly signedIn: boolean,
    private readonly changed: () => void,
  ) {}

  /** Reads both players' profiles, the first time both are known. */
  lookUp(g: GameModel, signal: AbortSignal): void {
    if (this.asked || !this.signedIn || !g.white || !g.black) return;
    this.asked = true;
    for (const p of [g.white, g.black]) {
      get<PublicUser>(`/users/${p.id}`).then((u) => {
        if (signal.aborted || !u.provisional.length) return;
        this.byPlayer.set(p.id, u.provisional);
        this.changed();
      }, () => {});
    }
  }

  /** The '?' after the rating of player `id` in the game's category, when it is provisional. */
  mark(id: string, g: GameModel): Child {
    return provisionalMark({ provisional: this.byPlayer.get(id) }, g.timeControl.category);
  }
}
