import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { ROOM_MESSAGES } from '../../rooms/messages.ts';

const root = new URL('../../', import.meta.url);

/**
 * Every "Room protocol" section (down to the next heading of its level) of README.md and
 * docs/*.md: the README keeps a brief one, docs/protocol.md the full one.
 */
function roomProtocolSections(): { file: string; text: string }[] {
  const docs = readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs].flatMap((file) => {
    const lines = readFileSync(new URL(file, root), 'utf8').split('\n');
    const start = lines.findIndex((l) => /^#+ .*Room protocol/.test(l));
    if (start < 0) return [];
    const level = lines[start].indexOf(' ');
    const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(' ') <= level);
    return [{ file, text: lines.slice(start, end < 0 ? undefined : end).join('\n') }];
  });
}

/**
 * The message names the section's tables give: the leading code span of each cell of a column
 * headed "client → server", "server → client" or "answer" (`move:ok {id?, …}` names `move:ok`).
 */
function tabledNames(text: string): Set<string> {
  const names = new Set<string>();
  let columns: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      columns = [];
      continue;
    }
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (columns.length === 0 && !cells.every((c) => /^:?-+:?$/.test(c))) {
      columns = cells.flatMap((c, i) => (/client → server|server → client|answer/.test(c) ? [i] : []));
      if (columns.length === 0) columns = [-1]; // a table of something else
      continue;
    }
    for (const i of columns) {
      const name = /^`([\w:]+)/.exec(cells[i] ?? '')?.[1];
      if (name) names.add(name);
    }
  }
  return names;
}

/** Names the section's examples send or listen to: `room.send('move', …)`, `onMessage('paired', …)`. */
const exampleNames = (text: string) => new Set([...text.matchAll(/\b(?:send|onMessage)\('([\w:]+)'/g)].map((m) => m[1]));
/** Names the section mentions in code spans: `error {id?, …}`, `game_started`. */
const spannedNames = (text: string) => new Set([...text.matchAll(/`([\w:]+)[^`]*`/g)].map((m) => m[1]));

const catalogue = new Set<string>(Object.values(ROOM_MESSAGES).flatMap((room) => [...room.in, ...room.out]));

describe('the room protocol in the docs', () => {
  const sections = roomProtocolSections();
  const mentioned = (text: string) => new Set([...tabledNames(text), ...exampleNames(text), ...spannedNames(text)]);

  it('documents every message of the catalogue (rooms/messages.ts) in one section', () => {
    assert.ok(sections.length > 0, 'no document has a "Room protocol" section');
    const fullest = sections.reduce((a, b) => (mentioned(b.text).size > mentioned(a.text).size ? b : a));
    const missing = [...catalogue].filter((name) => !mentioned(fullest.text).has(name));
    assert.deepEqual(missing, [], `${fullest.file} does not mention these room messages`);
  });

  it("names no message the rooms do not have, in any section's tables or examples", () => {
    for (const { file, text } of sections) {
      const documented = new Set([...tabledNames(text), ...exampleNames(text)]);
      assert.ok(documented.size >= 4, `found only ${[...documented].join(', ')} in ${file}`);
      const unknown = [...documented].filter((name) => !catalogue.has(name));
      assert.deepEqual(unknown, [], `${file} names messages that rooms/messages.ts does not have`);
    }
  });
});
