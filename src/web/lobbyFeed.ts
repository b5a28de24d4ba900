// The lobby room, joined once per tab: the open seeks (its state), and for a signed-in user their
// pending challenges and the news that a seek or challenge became a game (README, "Lobby").

import type { Room } from '@colyseus/sdk';
import { rooms } from './colyseus.ts';
import { session } from './session.ts';
import type { Challenge, Seek } from './types/api.ts';

type Listener = () => void;

class LobbyFeed {
  seeks: Seek[] = [];
  challenges: Challenge[] = [];
  connected = false;
  private room?: Room;
  private listeners = new Set<Listener>();
  private gameListeners = new Set<(gameId: string) => void>();
  private generation = 0;
  private retry?: ReturnType<typeof setTimeout>;

  /** (Re)joins as the current user, or as an anonymous watcher. */
  async connect(): Promise<void> {
    const generation = ++this.generation;
    clearTimeout(this.retry);
    const previous = this.room;
    this.room = undefined;
    this.challenges = [];
    // A room whose socket is gone never answers a leave: do not wait for it.
    if (previous?.connection?.isOpen) await Promise.race([previous.leave().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    try {
      const token = await session.accessToken();
      const room = await rooms.joinOrCreate('lobby', token ? { token } : {});
      if (generation !== this.generation) return void room.leave();
      this.room = room;
      this.connected = true;
      room.onStateChange((state: { seeks: Map<string, Seek> & { forEach(fn: (s: Seek) => void): void } }) => {
        const seeks: Seek[] = [];
        state.seeks.forEach((s) => seeks.push({ ...s }));
        this.seeks = seeks.sort((a, b) => a.rating - b.rating);
        this.emit();
      });
      room.onMessage('challenges', (m: { challenges: Challenge[] }) => {
        this.challenges = m.challenges;
        this.emit();
      });
      room.onMessage('game_started', (m: { game_id: string }) => {
        for (const l of this.gameListeners) l(m.game_id);
      });
      room.onMessage('error', () => {});
      room.onDrop(() => {
        this.connected = false;
        this.emit();
      });
      room.onReconnect(() => {
        this.connected = true;
        this.emit();
      });
      // Left for good (the server restarted, reconnection gave up): join again shortly.
      room.onLeave(() => {
        if (generation !== this.generation) return;
        this.room = undefined;
        this.connected = false;
        this.emit();
        this.retry = setTimeout(() => void this.connect(), 2000);
      });
      this.emit();
    } catch {
      if (generation !== this.generation) return;
      this.connected = false;
      this.emit();
      this.retry = setTimeout(() => void this.connect(), 3000);
    }
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A seek or challenge of the signed-in user became a game. */
  onGameStarted(fn: (gameId: string) => void): () => void {
    this.gameListeners.add(fn);
    return () => this.gameListeners.delete(fn);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

export const lobbyFeed = new LobbyFeed();
