import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { personalToken } from '../helpers/credentials.ts';
import { api, newIp } from '../helpers/http.ts';
import { replayConversation, type ReplayUser } from '../helpers/lichessReplay.ts';
import { testService } from '../helpers/service.ts';
import { createUser, uniqueUsername } from '../helpers/users.ts';
import { parseConversation, type ConversationEvent } from '../support/lichessConversation.ts';

// Real Lichess clients' conversations with this service, recorded by hand through
// test/support/recordLichessClients.ts (the clients are not in this repository: see
// test/fixtures/lichess/README.md for what each recording is and how it was made), replayed
// against the running service: the same requests in the same order, each sent once its client
// had read what it had read then, and every answer and stream line compared with the recorded one.

function conversation(file: string): ConversationEvent[] {
  return parseConversation(gunzipSync(readFileSync(new URL(`../fixtures/lichess/${file}`, import.meta.url))).toString('utf8'));
}

/** The recorded clients: each label's user (a `script:` label is a second token of that user) and its token's scopes. */
type Cast = Record<string, { user: string; scopes: string[]; bot?: boolean }>;

async function replay(file: string, cast: Cast): Promise<Awaited<ReturnType<typeof replayConversation>>> {
  const events = conversation(file);
  const recordedUsers = [...new Set(Object.values(cast).map((c) => c.user))];
  const users = new Map(await Promise.all(recordedUsers.map(async (name) => [name, await createUser({ username: uniqueUsername(name.slice(0, 6)) })] as const)));
  const replayUsers: ReplayUser[] = [];
  const ips = new Map<string, string>();
  for (const [client, c] of Object.entries(cast)) {
    const user = users.get(c.user)!;
    const { token } = await personalToken(user, c.scopes);
    if (c.bot) assert.equal((await api('POST', '/api/bot/account/upgrade', { token, ip: user.ip })).status, 200);
    replayUsers.push({ client, recorded: c.user, username: user.username, token });
    ips.set(client, newIp());
  }
  const { service, config } = await testService();
  return replayConversation(events, {
    base: service.url,
    users: replayUsers,
    recordedOrigin: 'http://localhost:2600',
    origin: config.publicUrl,
    ip: (client) => ips.get(client)!,
    keepGaps: /\/chat$/,
  });
}

describe("Real Lichess clients' recorded conversations, replayed (DESIGN 2.13)", () => {
  it("lichess-bot: two bots with its random-move engine play a game to its end (a draw in 389 plies): every answer and every stream line as recorded", async function () {
    this.timeout(120_000);
    const bot = { scopes: ['games:read', 'board:play', 'bot:play', 'challenge:read', 'challenge:write'], bot: true };
    const result = await replay('lichess-bot-two-bots.jsonl.gz', {
      randombot_a: { user: 'randombot_a', ...bot },
      randombot_b: { user: 'randombot_b', ...bot },
      'script:randombot_a': { user: 'randombot_a', scopes: ['challenge:write', 'challenge:read'] },
    });
    assert.deepEqual(result.differences, []);
    assert.deepEqual([result.exchanges, result.lines], [412, 793], 'every exchange made, every line read');
  });

  it("berserk (Lichess's Python client) plays the Board API against a lichess-bot: challenge as JSON, draw offer, chat, resignation, export", async function () {
    this.timeout(60_000);
    const result = await replay('berserk-board-vs-lichess-bot.jsonl.gz', {
      boardapp_d: { user: 'boardapp_d', scopes: ['board:play', 'challenge:read', 'challenge:write'] },
      randombot_e: { user: 'randombot_e', scopes: ['bot:play', 'challenge:read', 'challenge:write'], bot: true },
    });
    assert.deepEqual(result.differences, []);
    assert.deepEqual([result.exchanges, result.lines], [60, 98], 'every exchange made, every line read');
  });
});
