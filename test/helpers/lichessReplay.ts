import http from 'node:http';
import { isStreamed, TOKEN_PLACEHOLDER, type ConversationEvent } from '../support/lichessConversation.ts';

/**
 * Replays a recorded conversation of real Lichess clients (test/support/lichessConversation.ts)
 * against a running service, as those clients would hold it: each client sends its requests in
 * the recorded order, and a request waits for what its client had read when it sent it (its
 * streams' lines up to then, its earlier answers), so that a bot moves when its stream says it
 * is its turn, whatever the service's pace. Each answer and each line is compared with the
 * recorded one (see `compare`); the differences are returned, none is thrown on the way.
 *
 * What differs between two runs of one conversation is mapped: each recorded user is a fresh
 * user of the same role (`users`), each recorded id (a UUID) the id the service gave in the same
 * place of the same answer, the recorded origin the running service's. A challenge of colour
 * `random` is sent with the colour the recording got, so that the same client plays the same
 * moves (the answer's `color` then names it; `random` recorded matches either).
 */

/** A recorded client (its label), the user it was (`recorded`), and who plays it now. */
export type ReplayUser = { client: string; recorded: string; username: string; token: string };

export type ReplayOptions = {
  base: string;
  /** Each recorded client's replacement. */
  users: ReplayUser[];
  /** The origin the recording's answers name (`http://localhost:2600`), and the one the service names now (its PUBLIC_URL). */
  recordedOrigin: string;
  origin: string;
  /** Each request's client address (the service trusts X-Forwarded-For in tests). */
  ip: (client: string) => string;
  /** How long to wait for a line or an answer before the replay gives up on it. */
  waitMs?: number;
  /**
   * Requests whose pace a limit judges (chat: one a second, three at once): between two of a
   * client's, the replay leaves the recorded gap, up to `gapCapMs`, so that a limit judges them
   * as it judged the recording; every other request goes as soon as its client may send it.
   */
  keepGaps?: RegExp;
  gapCapMs?: number;
};

export type ReplayResult = { differences: string[]; exchanges: number; lines: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Numbers compared by value: a time control, a count; any other number (clocks, ratings, times) by type. */
const EXACT_NUMBERS = new Set(['winc', 'binc', 'increment', 'initial', 'limit', 'daysPerTurn', 'nbMyTurn']);

type Exchange = {
  request: Extract<ConversationEvent, { kind: 'request' }>;
  response?: Extract<ConversationEvent, { kind: 'response' }>;
  lines: Extract<ConversationEvent, { kind: 'line' }>[];
  end?: Extract<ConversationEvent, { kind: 'end' }>;
};

/** Something the replay waits on: whoever waits is woken at each change and looks again. */
class Progress {
  private wakers: (() => void)[] = [];

  protected wake(): void {
    for (const w of this.wakers.splice(0)) w();
  }

  /** Resolves once `ready()` holds; false if `ms` passed first. */
  until(ready: () => boolean, ms: number): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      const check = () => {
        if (ready()) {
          clearTimeout(timer);
          resolve(true);
        } else this.wakers.push(check);
      };
      this.wakers.push(check);
    });
  }
}

/** The exchanges answered so far (a stream: once its headers came). */
class Answers extends Progress {
  private readonly ids = new Set<number>();

  add(id: number): void {
    this.ids.add(id);
    this.wake();
  }

  has(id: number): boolean {
    return this.ids.has(id);
  }
}

/** A stream being replayed: the lines read so far, and whoever waits for more. */
class LiveStream extends Progress {
  readonly lines: unknown[] = [];
  ended = false;

  constructor(readonly req: http.ClientRequest) {
    super();
  }

  push(line: unknown): void {
    this.lines.push(line);
    this.wake();
  }

  finish(): void {
    this.ended = true;
    this.wake();
  }
}

const isChat = (line: { type?: string }) => line.type === 'chatLine';

export async function replayConversation(events: ConversationEvent[], o: ReplayOptions): Promise<ReplayResult> {
  const waitMs = o.waitMs ?? 10_000;
  const differences: string[] = [];
  const ids = new Map<string, string>();
  const byClient = new Map<string, Exchange[]>();
  const exchanges = new Map<number, Exchange>();
  for (const e of events) {
    if (e.kind === 'request') {
      const x: Exchange = { request: e, lines: [] };
      exchanges.set(e.id, x);
      byClient.set(e.client, [...(byClient.get(e.client) ?? []), x]);
    } else {
      const x = exchanges.get(e.id)!;
      if (e.kind === 'response') x.response = e;
      else if (e.kind === 'line') x.lines.push(e);
      else x.end = e;
    }
  }
  const user = new Map(o.users.map((u) => [u.client, u]));
  const recordedNames = [...new Map(o.users.map((u) => [u.recorded, u.username]))];
  let lineCount = 0;
  const answers = new Answers();
  const byAnswerTime = [...exchanges.values()].filter((x) => x.response).sort((a, b) => a.response!.t - b.response!.t);

  /** A recorded text as this run would say it: its users, its ids, its origin. */
  const translate = (text: string): string => {
    let t = text.split(o.recordedOrigin).join(o.origin);
    for (const [recorded, username] of recordedNames) t = t.split(recorded).join(username);
    return t.replace(UUID_IN_TEXT, (id) => ids.get(id.toLowerCase()) ?? id);
  };

  /** Compares a recorded JSON value with the one replayed; binds recorded ids to replayed ones. */
  const compare = (recorded: unknown, replayed: unknown, where: string, key = ''): void => {
    const diff = (what: string): void => void differences.push(`${where}: ${what}`);
    if (typeof recorded === 'string' && UUID.test(recorded)) {
      if (typeof replayed !== 'string' || !UUID.test(replayed)) return diff(`an id was recorded, ${JSON.stringify(replayed)} came`);
      const bound = ids.get(recorded.toLowerCase());
      if (bound === undefined) ids.set(recorded.toLowerCase(), replayed.toLowerCase());
      else if (bound !== replayed.toLowerCase()) diff(`id ${recorded} was ${bound}, now ${replayed}`);
      return;
    }
    if (key === 'color' && recorded === 'random' && (replayed === 'white' || replayed === 'black')) return;
    if (Array.isArray(recorded)) {
      if (!Array.isArray(replayed)) return diff(`an array was recorded, ${JSON.stringify(replayed)} came`);
      if (recorded.length !== replayed.length) diff(`${recorded.length} items recorded, ${replayed.length} came`);
      recorded.forEach((item, i) => compare(item, replayed[i], `${where}[${i}]`, key));
      return;
    }
    if (recorded !== null && typeof recorded === 'object') {
      if (replayed === null || typeof replayed !== 'object' || Array.isArray(replayed)) return diff(`an object was recorded, ${JSON.stringify(replayed)} came`);
      const r = recorded as Record<string, unknown>;
      const p = replayed as Record<string, unknown>;
      for (const k of new Set([...Object.keys(r), ...Object.keys(p)])) {
        if (!(k in p)) diff(`${k} was recorded, is missing`);
        else if (!(k in r)) diff(`${k} came, was not recorded`);
        else compare(r[k], p[k], `${where}.${k}`, k);
      }
      return;
    }
    if (typeof recorded === 'number' && !EXACT_NUMBERS.has(key)) {
      if (typeof replayed !== 'number') diff(`a number was recorded, ${JSON.stringify(replayed)} came`);
      return;
    }
    const expected = typeof recorded === 'string' ? translate(recorded) : recorded;
    if (expected !== replayed) diff(`${JSON.stringify(expected)} expected, ${JSON.stringify(replayed)} came`);
  };

  const compareBody = (recorded: string | undefined, replayed: string, where: string, contentType: string | undefined): void => {
    if (!(contentType ?? '').includes('json')) return;
    let expected: unknown, got: unknown;
    try {
      expected = recorded === undefined ? undefined : JSON.parse(recorded);
      got = JSON.parse(replayed);
    } catch {
      differences.push(`${where}: the answer is not JSON: ${replayed.slice(0, 200)}`);
      return;
    }
    compare(expected, got, where);
  };

  const runClient = async (client: string, mine: Exchange[]): Promise<void> => {
    const streams = new Map<number, LiveStream>();
    let lastPaced: { recorded: number; sent: number } | undefined;
    for (const x of mine) {
      const t = x.request.t;
      const where = `${client} #${x.request.id} ${x.request.method} ${x.request.path}`;
      // What any client had been answered before this request was sent may have changed what it
      // is answered: it is answered first.
      const before = byAnswerTime.filter((y) => y.response!.t < t && y !== x).map((y) => y.request.id);
      if (!(await answers.until(() => before.every((id) => answers.has(id)), waitMs))) {
        differences.push(`${where}: waited for the answers to #${before.filter((id) => !answers.has(id)).join(', #')}`);
        return;
      }
      // What the client had read when it sent this request, it reads again first.
      for (const [id, live] of streams) {
        const recorded = exchanges.get(id)!;
        const seen = recorded.lines.filter((l) => l.t < t && l.text !== '').length;
        const endedBefore = recorded.end !== undefined && recorded.end.by === 'server' && recorded.end.t < t;
        const ok = await live.until(() => live.lines.length >= seen && (!endedBefore || live.ended), waitMs);
        if (!ok) {
          differences.push(`${where}: waited for line ${seen} of ${recorded.request.path} (${live.lines.length} came)${endedBefore ? ' and its end' : ''}`);
          return;
        }
        if (recorded.end?.by === 'client' && recorded.end.t < t && !live.ended) {
          live.req.destroy();
          live.finish();
        }
      }
      const u = user.get(client);
      const headers: Record<string, string> = { ...x.request.headers, 'x-forwarded-for': o.ip(client) };
      if (headers.authorization) headers.authorization = `Bearer ${u!.token}`;
      let body = x.request.body === undefined ? undefined : translate(x.request.body).split(TOKEN_PLACEHOLDER).join(u?.token ?? '');
      if (body !== undefined && /(^|&)color=random(&|$)/.test(body) && x.response?.body) {
        const finalColor = JSON.parse(x.response.body).finalColor;
        if (finalColor) body = body.replace(/(^|&)color=random(&|$)/, `$1color=${finalColor}$2`);
      }
      const path = translate(x.request.path);
      if (o.keepGaps?.test(x.request.path)) {
        if (lastPaced) {
          const gap = Math.min(x.request.t - lastPaced.recorded, o.gapCapMs ?? 1500) - (performance.now() - lastPaced.sent);
          if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
        }
        lastPaced = { recorded: x.request.t, sent: performance.now() };
      }
      const hide = (text: string) => (u ? text.split(u.token).join(TOKEN_PLACEHOLDER) : text);
      const req = http.request(`${o.base}${path}`, { method: x.request.method, headers });
      const res = await new Promise<http.IncomingMessage | Error>((resolve) => {
        req.once('response', resolve);
        req.once('error', resolve);
        req.end(body);
      });
      if (res instanceof Error) {
        differences.push(`${where}: ${res.message}`);
        answers.add(x.request.id);
        continue;
      }
      const recorded = x.response;
      if (recorded && recorded.status !== res.statusCode) differences.push(`${where}: status ${recorded.status} recorded, ${res.statusCode} came`);
      const contentType = res.headers['content-type'];
      if (recorded && (recorded.headers['content-type'] ?? '').split(';')[0] !== (contentType ?? '').split(';')[0]) {
        differences.push(`${where}: content-type ${recorded.headers['content-type']} recorded, ${contentType} came`);
      }
      if (recorded?.headers['retry-after'] !== undefined && res.headers['retry-after'] === undefined) differences.push(`${where}: no Retry-After`);
      res.setEncoding('utf8');
      if (isStreamed(contentType) && res.statusCode === 200) {
        const live = new LiveStream(req);
        streams.set(x.request.id, live);
        // A chat line may come before or after a move's gameState, and the two players' chat
        // lines in either order, as their requests cross: the other lines are compared in their
        // order, a chat line with the recorded one of the same room, author and text.
        const expected = x.lines.filter((l) => l.text !== '').map((l) => JSON.parse(hide(l.text)) as { type?: string });
        const others = expected.filter((l) => !isChat(l));
        const chats = expected.filter(isChat).map((l) => translate(JSON.stringify(l)));
        let other = 0;
        answers.add(x.request.id);
        let partial = '';
        res.on('data', (chunk: string) => {
          const lines = (partial + chunk).split('\n');
          partial = lines.pop()!;
          for (const text of lines) {
            if (text === '') continue;
            const at = live.lines.length;
            let line: { type?: string };
            try {
              line = JSON.parse(hide(text));
            } catch {
              differences.push(`${where} line ${at}: not JSON: ${text.slice(0, 200)}`);
              continue;
            }
            lineCount++;
            if (isChat(line)) {
              const match = chats.indexOf(JSON.stringify(line));
              if (match >= 0) chats.splice(match, 1);
              else differences.push(`${where} line ${at}: a chat line that was not recorded: ${JSON.stringify(line)}`);
            } else if (other < others.length) compare(others[other++], line, `${where} line ${at}`);
            live.push(line);
          }
        });
        res.on('close', () => live.finish());
        res.on('error', () => {});
      } else {
        const text = await new Promise<string>((resolve) => {
          let all = '';
          res.on('data', (c: string) => (all += c));
          res.on('end', () => resolve(all));
          res.on('error', () => resolve(all));
        });
        if (recorded) compareBody(recorded.body, hide(text), where, contentType);
        answers.add(x.request.id);
      }
    }
    // The client's streams give what they gave in the recording, then end as they did.
    for (const [id, live] of streams) {
      const recorded = exchanges.get(id)!;
      const expected = recorded.lines.filter((l) => l.text !== '').length;
      const serverEnded = recorded.end?.by === 'server';
      const ok = await live.until(() => live.lines.length >= expected && (!serverEnded || live.ended), waitMs);
      if (!ok) differences.push(`${client} ${recorded.request.path}: ${expected} lines recorded${serverEnded ? ' and the end' : ''}, ${live.lines.length} came${live.ended ? ' and it ended' : ''}`);
      else if (live.lines.length > expected) differences.push(`${client} ${recorded.request.path}: ${expected} lines recorded, ${live.lines.length} came`);
      live.req.destroy();
    }
  };

  await Promise.all([...byClient].map(([client, mine]) => runClient(client, mine)));
  return { differences, exchanges: exchanges.size, lines: lineCount };
}
