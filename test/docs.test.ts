import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The README is the front door and docs/ the house: every relative link between them must land on
// a file of the repository (and on a heading, when it names one), and nothing may point outside the
// repository, which a clone has to stand on alone.

const ROOT = path.resolve(import.meta.dirname, '..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'assets/openings/README.md',
  'assets/puzzles/README.md',
];

/** The page's text outside fenced code blocks, where links and headings are what they seem. */
function prose(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');
}

function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of prose(page).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Every link target of a page: markdown links and images, and HTML `src`/`href` attributes. */
function targets(page: string): string[] {
  const text = prose(page).replace(/`[^`\n]*`/g, '');
  const markdown = [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]);
  const html = [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  return [...markdown, ...html];
}

const isWeb = (target: string) => /^(https?:|mailto:)/.test(target);

describe('The README and docs/', () => {
  it('link only to files of the repository that exist, and to headings those files have', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of targets(page)) {
        if (isWeb(target)) continue;
        const [file, anchor] = target.split('#', 2);
        const resolved = file ? path.resolve(ROOT, path.dirname(page), decodeURIComponent(file)) : path.join(ROOT, page);
        const inside = path.relative(ROOT, resolved);
        if (inside.startsWith('..') || path.isAbsolute(inside)) {
          broken.push(`${page}: ${target} points outside the repository`);
        } else if (!existsSync(resolved)) {
          broken.push(`${page}: ${target} names no file`);
        } else if (anchor !== undefined && (!resolved.endsWith('.md') || !anchors(inside).has(anchor))) {
          broken.push(`${page}: ${target} names no heading of ${inside}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('name no path outside the repository, even in code', () => {
    const outside: string[] = [];
    for (const page of PAGES) {
      const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/\.\.\/shared\b|\/work\/|(?<![\w/.])shared\/(?:spec|data|DESIGN)/.test(line)) outside.push(`${page}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(outside, []);
  });

  it('are all reachable from the README', () => {
    const linked = new Set(
      targets('README.md')
        .filter((target) => !isWeb(target))
        .map((target) => path.normalize(target.split('#')[0])),
    );
    const unlinked = PAGES.filter((page) => page.startsWith('docs/') && !linked.has(page));
    assert.deepEqual(unlinked, []);
  });

  it('keep the README short enough to read in ten minutes', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines <= 300, `README.md has ${lines} lines`);
  });
});
