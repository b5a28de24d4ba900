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

const escapeTag = (value: string) => (/["\\]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"') : value);

/**
 * Strings made once and kept: an export writes a few thousand distinct clock comments and move
 * numbers millions of times, and a string made per ply is garbage the collector must chase (the
 * export's memory is its garbage, DESIGN 2.12). Clocks up to three hours and move numbers up to
 * 600 are kept (some 500 KB when all are used); others are made when needed.
 */
const CACHED_CLOCK_SECONDS = 3 * 3600;
const CACHED_MOVE_NUMBERS = 600;
const clockComments: string[] = [];
const whiteNumbers: string[] = [];
const blackNumbers: string[] = [];

/** `{ [%clk h:mm:ss] }` for `ms` on the clock. */
function clockComment(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds > CACHED_CLOCK_SECONDS) return `{ [%clk ${formatClock(ms)}] }`;
  return (clockComments[seconds] ??= `{ [%clk ${formatClock(ms)}] }`);
}

/** `12.` before White's move, or `12...` to resume before Black's after a comment. */
function moveNumber(n: number, black: boolean): string {
  if (n > CACHED_MOVE_NUMBERS) return black ? `${n}...` : `${n}.`;
  return black ? (blackNumbers[n] ??= `${n}...`) : (whiteNumbers[n] ??= `${n}.`);
}

/** The comment after ply `ply` (0-based): eval then clock, as Lichess orders them; '' for none. */
function comment(input: Pick<PgnInput, 'clocks' | 'evals'>, ply: number): string {
  const evaluation = input.evals?.[ply];
  const clock = input.clocks?.[ply];
  if (evaluation == null) return clock == null ? '' : clockComment(clock);
  return clock == null ? `{ [%eval ${evaluation}] }` : `{ [%eval ${evaluation}] [%clk ${formatClock(clock)}] }`;
}

/**
 * The movetext and the result in lines of at most 80 characters (a comment is one token, so a
 * line break never splits it): the tokens and the spaces and line breaks between them, joined
 * once. Nothing is made per ply but the SAN's place in the list.
 */
function movetext(input: PgnInput): string {
  const plies = input.sanList.length;
  // A ply writes at most a number, its SAN and a comment, each after a separator.
  const parts: string[] = new Array(plies * 6 + 2);
  let count = 0;
  let lineLength = 0;
  const put = (token: string) => {
    if (lineLength === 0) lineLength = token.length;
    else if (lineLength + 1 + token.length > MAX_LINE) {
      parts[count++] = '\n';
      lineLength = token.length;
    } else {
      parts[count++] = ' ';
      lineLength += 1 + token.length;
    }
    parts[count++] = token;
  };
  let commented = false;
  for (let ply = 0; ply < plies; ply++) {
    if (ply % 2 === 0) put(moveNumber(ply / 2 + 1, false));
    else if (commented) put(moveNumber((ply + 1) / 2, true));
    put(input.sanList[ply]);
    const text = comment(input, ply);
    commented = text !== '';
    if (commented) put(text);
  }
  put(input.result);
  parts.length = count;
  return parts.join('');
}

export function formatPgn(input: PgnInput): string {
  const date = input.date instanceof Date ? formatPgnDate(input.date) : (input.date ?? '????.??.??');
  let header =
    `[Event "${escapeTag(input.event ?? '?')}"]\n[Site "${escapeTag(input.site ?? '?')}"]\n[Date "${escapeTag(date)}"]\n` +
    `[Round "${escapeTag(input.round ?? '-')}"]\n[White "${escapeTag(input.white)}"]\n[Black "${escapeTag(input.black)}"]\n` +
    `[Result "${input.result}"]`;
  if (input.whiteElo != null) header += `\n[WhiteElo "${Math.round(input.whiteElo)}"]`;
  if (input.blackElo != null) header += `\n[BlackElo "${Math.round(input.blackElo)}"]`;
  if (input.initialTime !== undefined && input.increment !== undefined) {
    header += `\n[TimeControl "${input.initialTime}+${input.increment}"]`;
  }
  if (input.termination) header += `\n[Termination "${escapeTag(input.termination)}"]`;
  for (const name in input.tags) header += `\n[${name} "${escapeTag(input.tags[name])}"]`;
  return `${header}\n\n${movetext(input)}\n`;
}

/**
 * What ply `ply` (1 = White's first) adds to the movetext of a game from the standard start, as
 * ChessGame writes it: `1. e4`, ` e5`, ` 2. Nf3`. `afterText` says whether movetext precedes it.
 */
export function movetextSuffix(ply: number, san: string, afterText: boolean): string {
  const space = afterText ? ' ' : '';
  return ply % 2 === 1 ? `${space}${(ply + 1) / 2}. ${san}` : `${space}${san}`;
}
