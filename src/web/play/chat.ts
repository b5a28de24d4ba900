// The game's chat beside the board (DESIGN 2.11): a player room (the two players) and a spectator
// room. Who sees which: a player the player room, and the spectator room once the game is over
// (players may not write there during the game, and the page keeps it out of their way); anyone
// else signed in the spectator room only. Messages are read with GET when the page opens and after
// each reconnection (live chat is never replayed), then arrive live from the room or the game's
// channel; sending is a POST, whose answer is shown at once (the live copy has the same id).

import { ApiError, del, get, plainError, post } from '../api.ts';
import { fill, h, setText, userLink } from '../dom.ts';
import type { ChatMessage, ChatRoom } from '../types/api.ts';

const TAB_NAMES: Record<ChatRoom, string> = { player: 'Players', spectator: 'Spectators' };
const MAX_SHOWN = 100;
const POLL_MS = 5000;

/** A chat refusal in plain words (the API's wording is for programmers). */
export function chatError(e: unknown, room: ChatRoom): string {
  if (e instanceof ApiError) {
    if (e.code === 'RATE_LIMIT_EXCEEDED') {
      return e.details?.room ? 'You have sent as many messages as a game allows in this chat.' : 'You are sending messages too fast. Wait a moment and try again.';
    }
    if (e.code === 'FORBIDDEN' && room === 'spectator') return 'Players can write to the spectators once the game is over.';
    if (e.code === 'NOT_A_PLAYER') return 'Only the two players can use this chat.';
    if (e.code === 'VALIDATION_ERROR' && e.details?.text) return 'A message is 1 to 140 characters on one line, without special characters.';
  }
  return plainError(e);
}

export class ChatPanel {
  readonly el: HTMLElement;
  private readonly tabs: HTMLElement;
  private readonly lines: HTMLOListElement;
  private readonly form: HTMLFormElement;
  private readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private readonly muteBox: HTMLInputElement;
  private readonly muteLine: HTMLElement;
  private readonly messages: Record<ChatRoom, ChatMessage[]> = { player: [], spectator: [] };
  private rooms: ChatRoom[] = [];
  private current: ChatRoom | undefined;
  private loaded = new Set<ChatRoom>();
  private poller?: ReturnType<typeof setInterval>;
  private drawnKey = '';

  constructor(private readonly gameId: string) {
    this.tabs = h('div', { class: 'chat-tabs', role: 'tablist', 'aria-label': 'Chat rooms' });
    this.lines = h('ol', { class: 'chat-lines', 'aria-live': 'polite', 'aria-label': 'Chat messages' });
    this.input = h('input', { name: 'text', maxlength: 140, autocomplete: 'off', 'aria-label': 'Message', placeholder: 'Say something…' });
    this.form = h('form', { class: 'chat-form' }, this.input, h('button', { type: 'submit' }, 'Send'));
    this.error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    this.muteBox = h('input', { type: 'checkbox', class: 'mute' });
    this.muteLine = h('label', { class: 'chat-mute', hidden: true }, this.muteBox, ' Mute my opponent');
    this.el = h('section', { class: 'chat', 'aria-label': 'Chat', hidden: true }, this.tabs, this.lines, this.form, this.error, this.muteLine);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.send();
    });
    this.muteBox.checked = localStorage.getItem(this.muteKey()) === '1';
    this.muteBox.addEventListener('change', () => void this.mute(this.muteBox.checked));
  }

  private muteKey = () => `chess.muted.${this.gameId}`;

  /** The rooms this viewer may see now (none: the panel hides), and whether they may mute (a player). */
  setRooms(rooms: ChatRoom[], canMute: boolean): void {
    this.muteLine.hidden = !canMute;
    if (rooms.join() === this.rooms.join()) return;
    this.rooms = rooms;
    this.el.hidden = rooms.length === 0;
    if (!this.current || !rooms.includes(this.current)) this.current = rooms[0];
    for (const room of rooms) if (!this.loaded.has(room)) void this.load(room);
    this.draw();
  }

  /**
   * Whether messages arrive live (the room, or the game's channel until the end). A finished game's
   * channel ends with it and its room goes soon after, while its chat stays open: the page then
   * reads the shown rooms every few seconds while it is looked at.
   */
  setLive(live: boolean): void {
    if (live && this.poller) {
      clearInterval(this.poller);
      this.poller = undefined;
    } else if (!live && !this.poller) {
      this.poller = setInterval(() => {
        if (document.visibilityState === 'visible') this.reload();
      }, POLL_MS);
    }
  }

  /** The page is left. */
  stop(): void {
    clearInterval(this.poller);
    this.poller = undefined;
  }

  /** Reads every shown room again (after a reconnection: live chat is not replayed). */
  reload(): void {
    for (const room of this.rooms) void this.load(room);
  }

  /** A message that arrived live (room, channel) or as the answer to a send. */
  receive(m: ChatMessage): void {
    const list = this.messages[m.room];
    if (!list || list.some((x) => x.id === m.id)) return;
    list.push(m);
    list.sort((a, b) => a.created_at.localeCompare(b.created_at));
    if (list.length > MAX_SHOWN) list.splice(0, list.length - MAX_SHOWN);
    if (m.room === this.current) this.drawLines();
    else this.drawTabs();
  }

  private async load(room: ChatRoom): Promise<void> {
    try {
      const list = await get<ChatMessage[]>(`/games/${this.gameId}/chat?room=${room}`);
      this.loaded.add(room);
      // What arrived live while the list was on its way stays (the ids tell duplicates apart).
      const live = this.messages[room].filter((m) => !list.some((x) => x.id === m.id));
      this.messages[room] = [...list, ...live].slice(-MAX_SHOWN);
      if (room === this.current) this.drawLines();
    } catch (e) {
      this.showError(chatError(e, room));
    }
  }

  private async send(): Promise<void> {
    const room = this.current;
    const text = this.input.value.trim();
    if (!room || !text) return;
    this.clearError();
    try {
      const message = await post<ChatMessage>(`/games/${this.gameId}/chat`, { text, room });
      this.input.value = '';
      this.receive(message);
    } catch (e) {
      this.showError(chatError(e, room));
    }
  }

  private async mute(muted: boolean): Promise<void> {
    this.clearError();
    try {
      if (muted) await post(`/games/${this.gameId}/chat/mute`);
      else await del(`/games/${this.gameId}/chat/mute`);
      localStorage.setItem(this.muteKey(), muted ? '1' : '0');
      // The opponent's messages leave (or come back to) what the API reads out.
      this.messages.player = [];
      this.messages.spectator = [];
      this.reload();
    } catch (e) {
      this.muteBox.checked = !muted;
      this.showError(plainError(e));
    }
  }

  private showError(text: string): void {
    setText(this.error, text);
    this.error.hidden = false;
  }

  private clearError(): void {
    setText(this.error, '');
    this.error.hidden = true;
  }

  private draw(): void {
    this.drawTabs();
    this.drawLines();
  }

  private drawTabs(): void {
    fill(this.tabs, this.rooms.map((room) =>
      h('button', {
        type: 'button', role: 'tab', 'data-room': room, 'aria-selected': String(room === this.current), class: room === this.current ? 'current' : null,
        onclick: () => {
          this.current = room;
          this.clearError();
          this.draw();
        },
      }, TAB_NAMES[room])));
    // One room needs no tabs.
    this.tabs.hidden = this.rooms.length < 2;
  }

  private drawLines(): void {
    const list = this.current ? this.messages[this.current] : [];
    // Read again unchanged (a reconnection, the finished game's reads): nothing redrawn or re-announced.
    const key = `${this.current}:${list.map((m) => m.id).join()}`;
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    fill(this.lines, list.length
      ? list.map((m) => h('li', null, h('span', { class: 'chat-user' }, userLink(m.user.username)), ' ', h('span', { class: 'chat-text' }, m.text)))
      : h('li', { class: 'empty' }, this.current === 'player' ? 'No messages between the players yet.' : 'No messages from spectators yet.'));
    this.lines.scrollTop = this.lines.scrollHeight;
    this.input.setAttribute('aria-label', `Message to the ${this.current === 'player' ? 'players' : 'spectators'}`);
  }
}
