import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/util/net.ts';

// test/support/ is the kit that tests and loadtest/ share (a database, a service process, fixture
// rows, a webhook receiver, percentiles): it imports src/ and nothing of test/helpers or mocha, so the
// benchmarks depend on these files alone and test/helpers stays free to change with the tests.

export type ServiceProcess = { child: ChildProcess; port: number; base: string; exited: Promise<number | null> };

/**
 * `npm start`'s process, as an operator runs it, on a free port against `databaseUrl`, with
 * settings for load (no rate limits, cheap bcrypt, no DNS, no analysis). Resolves once /healthz answers.
 * Used by the SIGTERM test and the benchmarks (whose CPU figures need the server on its own).
 */
export async function startServiceProcess(
  databaseUrl: string,
  o: {
    nodeArgs?: string[];
    env?: Record<string, string>;
    onStdoutLine?: (line: string) => void;
    /** How long to wait for /healthz (default 30 s). */
    startMs?: number;
    /** Its port (default: a free one). A node restarted in place keeps its address. */
    port?: number;
    /** Sets PUBLIC_ADDRESS to its own 127.0.0.1:port, as a node of a cluster needs for seat reservations. */
    publicAddress?: boolean;
  } = {},
): Promise<ServiceProcess> {
  const port = o.port ?? (await freePort());
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), '--import', 'tsx', 'src/index.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      RATE_LIMITS: 'off',
      BCRYPT_COST: '4',
      EMAIL_DOMAIN_CHECK: 'off',
      LOG_LEVEL: 'warn',
      // No engine unless asked for: the benchmarks measure the game server alone.
      ANALYSIS_WORKERS: '0',
      // The benchmarks open a thousand sockets from this one address.
      REALTIME_SOCKETS_PER_ADDRESS: '100000',
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'chess-process-')),
      ...(o.publicAddress ? { PUBLIC_ADDRESS: `127.0.0.1:${port}` } : {}),
      ...o.env,
    },
    stdio: ['ignore', o.onStdoutLine ? 'pipe' : 'ignore', 'inherit'],
  });
  if (o.onStdoutLine) {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (buffered + chunk.toString('utf8')).split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim()) o.onStdoutLine!(line);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (o.startMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start within ${(o.startMs ?? 30_000) / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port, base, exited };
}

export type JsonAnswer = { status: number; headers: Headers; body: any };

/** A JSON request to a service process (`base` is its origin, or origin + `/v1`). */
export async function requestJson(base: string, method: string, path: string, body?: unknown, token?: string): Promise<JsonAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined) };
}

/** POSTs and returns `data`, throwing on anything but a success envelope (setup steps). */
export async function postData(base: string, path: string, body: unknown, token?: string): Promise<any> {
  const answer = await requestJson(base, 'POST', path, body, token);
  if (!answer.body?.success) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Two players signed up through the API and an accepted challenge between them (rapid 15+0 unless told; White to move). */
export async function startGameOverApi(
  base: string,
  tag: string,
  timeControl: Record<string, unknown> = { time_control: 'rapid', initial_time: 900, increment: 0 },
): Promise<{ id: string; white: any; black: any }> {
  const white = await postData(base, '/auth/signup', { email: `w${tag}@example.com`, password: 'process-test-1', username: `w${tag}` });
  const black = await postData(base, '/auth/signup', { email: `b${tag}@example.com`, password: 'process-test-1', username: `b${tag}` });
  const game = await postData(
    base,
    '/games',
    { type: 'challenge', opponent_id: black.user.id, ...timeControl, color: 'white' },
    white.session.access_token,
  );
  await postData(base, `/games/${game.id}/accept`, {}, black.session.access_token);
  return { id: game.id, white, black };
}
