// Full PGN export (GET /games/{id}/pgn). Pure: the caller supplies names, ratings and clocks, so
// the same function serves live and archived games.

export interface PgnInput {
  event?: string;
  site?: string;
  /** A Date is written in UTC as YYYY.MM.DD. */
  date?: Date | string;
  round?: string;
  white: string;
  black: string;
  /** '*' while the game is unfinished. */
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  /** Seconds; written as TimeControl "initial+increment". */
  initialTime?: number;
  increment?: number;
  /** Written verbatim (e.g. "checkmate", "timeout"). */
  termination?: string | null;
  whiteElo?: number | null;
  blackElo?: number | null;
  /** Further tags, written after the standard ones in insertion order. */
  tags?: Readonly<Record<string, string>>;
  sanList: readonly string[];
  /** Milliseconds on the mover's clock right after each ply; null/missing plies get no comment. */
  clocks?: readonly (number | null | undefined)[];
  /** The evaluation after each ply as formatEval writes it; null/missing plies get none. */
  evals?: readonly (string | null | undefined)[];
}

/** The export format asks for lines of at most 80 characters. */
const MAX_LINE = 80;

/** `[%clk h:mm:ss]` value; rounded to whole seconds as Lichess does. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

export function formatPgnDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCFullYear()}.${pad(date.getUTCMonth() + 1)}.${pad(date.getUTCDate())}`;
}

/**
 * `[%eval …]` value: pawns from White's point of view with two decimals, or `#n` for a forced
 * mate in n (negative: Black mates), as Lichess writes it.
 */
export function formatEval(pawns: number, mate: number | null): string {
  return mate !== null ? `#${mate}` : pawns.toFixed(2);
}

const escapeTag = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/** The comment after ply `ply` (0-based): eval then clock, as Lichess orders them; '' for none. */
function comment(input: Pick<PgnInput, 'clocks' | 'evals'>, ply: number): string {
  const parts: string[] = [];
  const evaluation = input.evals?.[ply];
  if (evaluation != null) parts.push(`[%eval ${evaluation}]`);
  const clock = input.clocks?.[ply];
  if (clock != null) parts.push(`[%clk ${formatClock(clock)}]`);
  return parts.length > 0 ? `{ ${parts.join(' ')} }` : '';
}

/** Movetext tokens; a comment stays one token so a line break never splits it. */
function movetextTokens(input: PgnInput): string[] {
  const tokens: string[] = [];
  let previous = '';
  input.sanList.forEach((san, ply) => {
    if (ply % 2 === 0) tokens.push(`${ply / 2 + 1}.`);
    else if (previous) tokens.push(`${(ply + 1) / 2}...`); // resume after a comment
    tokens.push(san);
    previous = comment(input, ply);
    if (previous) tokens.push(previous);
  });
  return tokens;
}

function wrap(tokens: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const token of tokens) {
    if (line && line.length + 1 + token.length > MAX_LINE) {
      lines.push(line);
      line = token;
    } else {
      line = line ? `${line} ${token}` : token;
    }
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

export function formatPgn(input: PgnInput): string {
  const date = input.date instanceof Date ? formatPgnDate(input.date) : (input.date ?? '????.??.??');
  const tags: [string, string][] = [
    ['Event', input.event ?? '?'],
    ['Site', input.site ?? '?'],
    ['Date', date],
    ['Round', input.round ?? '-'],
    ['White', input.white],
    ['Black', input.black],
    ['Result', input.result],
  ];
  if (input.whiteElo != null) tags.push(['WhiteElo', String(Math.round(input.whiteElo))]);
  if (input.blackElo != null) tags.push(['BlackElo', String(Math.round(input.blackElo))]);
  if (input.initialTime !== undefined && input.increment !== undefined) {
    tags.push(['TimeControl', `${input.initialTime}+${input.increment}`]);
  }
  if (input.termination) tags.push(['Termination', input.termination]);
  for (const [name, value] of Object.entries(input.tags ?? {})) tags.push([name, value]);

  const header = tags.map(([name, value]) => `[${name} "${escapeTag(value)}"]`).join('\n');
  const body = wrap([...movetextTokens(input), input.result]);
  return `${header}\n\n${body}\n`;
}

/**
 * What ply `ply` (1 = White's first) adds to the movetext of a game from the standard start, as
 * ChessGame writes it: `1. e4`, ` e5`, ` 2. Nf3`. `afterText` says whether movetext precedes it.
 */
export function movetextSuffix(ply: number, san: string, afterText: boolean): string {
  const space = afterText ? ' ' : '';
  return ply % 2 === 1 ? `${space}${(ply + 1) / 2}. ${san}` : `${space}${san}`;
}
