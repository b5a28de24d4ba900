import { readFileSync } from 'node:fs';

/** The one text of the socket protocols; the API reference shows its sections (src/http/openapi.ts). */
const PROTOCOL_MD = new URL('../../docs/protocol.md', import.meta.url);

const heading = (line: string) => /^(#{1,6}) +(.+?) *$/.exec(line);

/**
 * Reads docs/protocol.md and answers the text under a heading (the heading left out): down to the
 * next heading, or with `whole` down to the next one of its level or above, subsections included.
 * Its links become their text (the docs' relative links lead nowhere from the reference's page).
 * A heading the file does not have (or has twice) throws, so a renamed section fails the document's tests.
 */
export function readProtocolDoc(text = readFileSync(PROTOCOL_MD, 'utf8')): (title: string, whole?: 'whole') => string {
  const lines = text.split('\n');
  // Fenced code is no heading and keeps its brackets: `# a comment` in a shell example.
  let fenced = false;
  const prose = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
  const levelAt = (i: number) => (prose[i] ? (heading(lines[i])?.[1].length ?? 0) : 0);
  return (title, whole) => {
    const found = lines.flatMap((line, i) => (prose[i] && heading(line)?.[2] === title ? [i] : []));
    if (found.length !== 1) throw new Error(`docs/protocol.md has ${found.length} headings "${title}", not one`);
    const [start] = found;
    const level = levelAt(start);
    let end = start + 1;
    while (end < lines.length && !(levelAt(end) && (!whole || levelAt(end) <= level))) end++;
    // A link may wrap: unlinked a run of prose lines at a time, code left as it is.
    const runs: { prose: boolean; lines: string[] }[] = [];
    for (let i = start + 1; i < end; i++) {
      const last = runs.at(-1);
      if (last?.prose === prose[i]) last.lines.push(lines[i]);
      else runs.push({ prose: prose[i], lines: [lines[i]] });
    }
    return runs
      .map((run) => (run.prose ? forReference(run.lines.join('\n')) : run.lines.join('\n')))
      .join('\n')
      .trim();
  };
}

/**
 * The docs' markdown as the reference's renderer (Swagger UI's Remarkable) reads it: links become
 * their text, and a code span with an escaped pipe in a table row becomes HTML code, since
 * Remarkable splits a row at every pipe, escaped or not.
 */
const forReference = (markdown: string) =>
  markdown
    .replace(/\[([^\]]+)\]\([^)\s]+\)/g, '$1')
    .replace(/^\|.*$/gm, (row) => row.replace(/`([^`]*\\\|[^`]*)`/g, (_, code: string) => `<code>${escapeHtml(code).replaceAll('\\|', '&#124;')}</code>`));

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
