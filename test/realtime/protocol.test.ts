import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SERVER_MESSAGES } from '../../src/realtime/messages.ts';

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

const catalogue = new Set<string>([...SERVER_MESSAGES.stream, ...SERVER_MESSAGES.channel]);

describe('the realtime protocol in the docs', () => {
  const section = realtimeSection();

  it('mentions every message the stream and the realtime channel send (ServerMessage, src/realtime/messages.ts)', () => {
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
    assert.deepEqual(SERVER_MESSAGES.stream.filter((name) => name !== 'pong' && !tabled.has(name)), []);
  });
});
