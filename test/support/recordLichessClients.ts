/**
 * A recording proxy for Lichess clients (DESIGN 2.13): point real clients (lichess-bot, a Board API
 * library) at it, and it forwards every request to the service and writes the conversation, as
 * test/support/lichessConversation.ts describes, one JSON event a line.
 *
 *   npx tsx test/support/recordLichessClients.ts --port 2601 --target http://127.0.0.1:2600 \
 *     --out test/fixtures/lichess/two-bots.jsonl --client white=<token> --client black=<token>
 *
 * A request is told apart by its bearer token (`--client name=token`); the tokens themselves are
 * never written. A clean end (SIGINT, SIGTERM) flushes the file.
 */
import http from 'node:http';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  isStreamed,
  KEPT_REQUEST_HEADERS,
  KEPT_RESPONSE_HEADERS,
  TOKEN_PLACEHOLDER,
  type ConversationEvent,
} from './lichessConversation.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '2601' },
    target: { type: 'string', default: 'http://127.0.0.1:2600' },
    out: { type: 'string' },
    client: { type: 'string', multiple: true, default: [] },
  },
});
if (!values.out) throw new Error('--out FILE is required');

const target = new URL(values.target!);
const clients = new Map(values.client!.map((c) => {
  const at = c.indexOf('=');
  return [c.slice(at + 1), c.slice(0, at)] as const;
}));
const out = createWriteStream(values.out, { flags: 'w' });
const started = performance.now();
let nextId = 1;

/** An event without its time: Omit over each kind of the union. */
type Untimed = ConversationEvent extends infer E ? (E extends ConversationEvent ? Omit<E, 't'> : never) : never;

function write(event: Untimed): void {
  out.write(`${JSON.stringify({ ...event, t: Math.round(performance.now() - started) })}\n`);
}

function kept(headers: http.IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (typeof value === 'string') keep[name] = value;
  }
  return keep;
}

function hideTokens(text: string): string {
  let hidden = text;
  for (const token of clients.keys()) hidden = hidden.split(token).join(TOKEN_PLACEHOLDER);
  return hidden;
}

const server = http.createServer((req, res) => {
  const id = nextId++;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const client = bearer ? (clients.get(bearer) ?? 'unknown') : 'anonymous';
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = { ...kept(req.headers, KEPT_REQUEST_HEADERS), ...(bearer ? { authorization: 'Bearer' } : {}) };
    write({ kind: 'request', client, id, method: req.method!, path: req.url!, headers, ...(body.length ? { body: hideTokens(body.toString('utf8')) } : {}) });
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        const answerHeaders = kept(answer.headers, KEPT_RESPONSE_HEADERS);
        res.writeHead(answer.statusCode!, answer.headers);
        if (isStreamed(answer.headers['content-type']) && answer.statusCode === 200) {
          write({ kind: 'response', client, id, status: answer.statusCode!, headers: answerHeaders });
          let partial = '';
          answer.setEncoding('utf8');
          answer.on('data', (text: string) => {
            res.write(text);
            const lines = (partial + text).split('\n');
            partial = lines.pop()!;
            for (const line of lines) write({ kind: 'line', client, id, text: hideTokens(line) });
          });
          answer.on('end', () => {
            write({ kind: 'end', client, id, by: 'server' });
            res.end();
          });
          // The service went away mid-stream (a killed node): the client's connection is cut
          // too, as a reverse proxy cuts it, so that the client sees what it would see.
          answer.on('close', () => {
            if (answer.complete) return;
            write({ kind: 'end', client, id, by: 'broken' });
            res.destroy();
          });
          res.on('close', () => {
            if (!answer.complete && !answer.destroyed) write({ kind: 'end', client, id, by: 'client' });
            upstream.destroy();
          });
        } else {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(parts);
            write({ kind: 'response', client, id, status: answer.statusCode!, headers: answerHeaders, ...(text.length ? { body: hideTokens(text.toString('utf8')) } : {}) });
            res.end(text);
          });
        }
      },
    );
    upstream.on('error', (err) => {
      write({ kind: 'response', client, id, status: 502, headers: {}, body: String(err) });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  });
});

server.listen(Number(values.port), '127.0.0.1', () => console.log(`recording ${values.target} on :${values.port} into ${values.out}`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close();
    out.end(() => process.exit(0));
  });
}
