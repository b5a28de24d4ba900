import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REALTIME_MESSAGES } from '../../src/realtime/messages.ts';

/** The "Realtime over plain WebSocket" section of docs/protocol.md, down to the next heading of its level. */
function realtimeSection(): string {
  const lines = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^#+ Realtime/.test(l));
  assert.ok(start >= 0, 'docs/protocol.md has no "Realtime" section');
  const level = lines[start].indexOf(' ');
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(' ') <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The leading word of each code span in `text`: `move {move: …}` names `move`, `error UNAUTHORIZED` names `error`. */
const spannedNames = (text: string) => [...text.matchAll(/`([a-z_]+)\b[^`]*`/g)].map((m) => m[1]);

/** The names in the column headed `heading` (`message`, `messages`) of the section's tables. */
function tabledNames(text: string, heading: string): string[] {
  const names: string[] = [];
  let column = -1;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      column = -1;
      continue;
    }
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const at = cells.indexOf(heading);
    if (at >= 0) column = at;
    else if (column >= 0) names.push(...spannedNames(cells[column] ?? ''));
  }
  return names;
}

const catalogue = new Set<string>([...REALTIME_MESSAGES.stream.out, ...REALTIME_MESSAGES.channel.out]);

/** The client messages the section shows being sent: `{"type":"subscribe",…}`, `type: 'subscribe'` in code. */
const sentNames = (text: string) => new Set([...text.matchAll(/"type":"(\w+)"|\btype: '(\w+)'/g)].map((m) => m[1] ?? m[2]));

describe('the realtime protocol in the docs', () => {
  const section = realtimeSection();

  it('mentions every message the stream and the realtime channel send (REALTIME_MESSAGES, src/realtime/messages.ts)', () => {
    const mentioned = new Set(spannedNames(section));
    assert.deepEqual([...catalogue].filter((name) => !mentioned.has(name)), []);
  });

  it("names no message in the stream's and the channels' tables that ServerMessage does not have", () => {
    const documented = [...tabledNames(section, 'message'), ...tabledNames(section, 'messages')];
    assert.ok(documented.length >= 20, `found only ${documented.join(', ')}`);
    assert.deepEqual([...new Set(documented)].filter((name) => !catalogue.has(name)), []);
  });

  it('lists every message of the stream in its table, but pong (an answer, listed with the channel)', () => {
    const tabled = new Set(tabledNames(section, 'message'));
    assert.deepEqual(REALTIME_MESSAGES.stream.out.filter((name) => name !== 'pong' && !tabled.has(name)), []);
  });

  it('shows every message a client may send (ClientMessage) and none it may not', () => {
    const shown = sentNames(section);
    assert.deepEqual([...REALTIME_MESSAGES.channel.in].filter((name) => !shown.has(name)), []);
    assert.deepEqual([...shown].filter((name) => !(REALTIME_MESSAGES.channel.in as readonly string[]).includes(name)), []);
  });
});
