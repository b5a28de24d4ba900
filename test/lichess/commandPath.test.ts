import assert from 'node:assert/strict';
import { personalToken } from '../helpers/credentials.ts';
import { createActiveGame, getGame, type ActiveGame } from '../helpers/games.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// Lichess's game commands are served past Express (src/lichess/commandPath.ts) when they come as a
// bot or board app sends them: a bearer token, no body, no Origin. A browser's request (with an
// Origin) and one with a body take Express's router. Both must answer alike: the same status,
// body and headers, whatever the command, the path's spelling or the failure.

/** The headers an answer is compared by (CORS is the Origin's alone; Date and ETag say nothing of the answer). */
const COMPARED = ['content-type', 'x-content-type-options', 'retry-after', 'www-authenticate', 'cache-control'];

type Answer = { status: number; body: unknown; headers: Record<string, string | null> };

const answerOf = (res: ApiResponse): Answer => ({
  status: res.status,
  body: res.body ?? res.text,
  headers: Object.fromEntries(COMPARED.map((h) => [h, res.headers.get(h)])),
});

/** The same POST as a bot sends it (past Express) and as a browser app sends it (with an Origin: Express). */
async function bothWays(path: string, token: string, ip: string): Promise<{ bare: Answer; routed: Answer; corsOnRouted: string | null; etags: (string | null)[] }> {
  const headers = { authorization: `Bearer ${token}` };
  const bare = await api('POST', path, { ip, headers });
  const routed = await api('POST', path, { ip, headers: { ...headers, origin: 'https://board-app.example' } });
  assert.equal(bare.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS answer');
  return { bare: answerOf(bare), routed: answerOf(routed), corsOnRouted: routed.headers.get('access-control-allow-origin'), etags: [bare.headers.get('etag'), routed.headers.get('etag')] };
}

describe("Lichess's game commands past Express answer as through its router (DESIGN 2.13)", () => {
  let white: TestUser;
  let black: TestUser;
  let game: ActiveGame;
  let whiteToken: string;
  let blackToken: string;

  beforeEach(async () => {
    [white, black] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(white, black, { color: 'white' });
    whiteToken = (await personalToken(game.white, ['board:play'])).token;
    blackToken = (await personalToken(game.black, ['board:play'])).token;
  });

  it('answers every refusal alike: the rules, the UCI, the query, an unknown game, a token without the scope, an invalid token, a path that does not decode', async () => {
    const readOnly = (await personalToken(game.white, ['challenge:read'])).token;
    const cases: [string, string, number][] = [
      [`/api/board/game/${game.id}/move/e7e5`, whiteToken, 400], // not White's piece
      [`/api/board/game/${game.id}/move/e2e4`, blackToken, 400], // not Black's turn
      [`/api/board/game/${game.id}/move/e2e9`, whiteToken, 400], // not UCI
      [`/api/board/game/${game.id}/move/e2e4?offeringDraw=maybe`, whiteToken, 400],
      [`/api/board/game/${game.id}/move/e2e4`, readOnly, 403],
      [`/api/board/game/${game.id}/move/e2e4`, 'lip_not_a_token_at_all', 401],
      [`/api/board/game/00000000-0000-4000-8000-000000000000/move/e2e4`, whiteToken, 404],
      [`/api/board/game/not-a-game/resign`, whiteToken, 404],
      [`/api/board/game/%ZZ/resign`, whiteToken, 400],
      [`/api/board/game/${game.id}/draw/perhaps`, whiteToken, 400],
      [`/api/board/game/${game.id}/claim-victory`, whiteToken, 400], // the opponent is here
      [`/api/bot/game/${game.id}/move/e2e4`, whiteToken, 403], // a Board token on the Bot API
    ];
    const served: string[] = [];
    for (const [path, token, status] of cases) {
      const { bare, routed, corsOnRouted, etags } = await bothWays(path, token, game.white.ip);
      // Which way each came: Express's res.json hashes an error's body for an ETag, the path past it does not.
      assert.notEqual(etags[1], null, `${path}: through Express`);
      if (etags[0] === null) served.push(path);
      assert.equal(bare.status, status, `${path}: ${JSON.stringify(bare.body)}`);
      assert.deepEqual(bare, routed, path);
      assert.deepEqual(Object.keys(bare.body as object), ['error'], path);
      assert.equal(bare.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(corsOnRouted, '*', `${path}: the browser's answer carries CORS`);
    }
    // All but the path that does not decode (Express answers that one) were served past Express.
    assert.deepEqual(served, cases.map(([path]) => path).filter((path) => !path.includes('%ZZ')));
    const probe = (await getGame(game.id, game.white)).body.data;
    assert.deepEqual([probe.status, probe.moves], ['active', []], 'no refusal changed the game');
  });

  it("plays and answers commands alike, in either spelling of the path: a move, a draw offer declined with nothing pending, the opponent's resignation", async () => {
    // White's move past Express, under /lichess, in capitals, with a trailing slash; Black's through the router.
    const first = await api('POST', `/lichess/API/Board/Game/${game.id}/move/E2E4/`, { token: whiteToken, ip: game.white.ip });
    const second = await api('POST', `/api/board/game/${game.id}/move/e7e5`, { token: blackToken, ip: game.black.ip, headers: { origin: 'https://board-app.example' } });
    assert.deepEqual(answerOf(first), answerOf(second));
    assert.deepEqual([first.status, first.body], [200, { ok: true }]);
    const { bare, routed } = await bothWays(`/api/board/game/${game.id}/draw/no`, whiteToken, game.white.ip);
    assert.deepEqual([bare.status, bare.body], [200, { ok: true }]);
    assert.deepEqual(bare, routed);
    const resigned = await api('POST', `/api/board/game/${game.id}/resign`, { token: blackToken, ip: game.black.ip });
    assert.deepEqual([resigned.status, resigned.body], [200, { ok: true }]);
    const after = (await getGame(game.id, game.white)).body.data;
    assert.deepEqual([after.moves.map((m: { white: string; black: string }) => [m.white, m.black]), after.result], [[['e4', 'e5']], '1-0']);
  });

  it('times each command it serves in the HTTP metrics under its route, as Express labels it', async () => {
    const label = (route: string, status: number) => `http_request_duration_seconds_count{method="POST",route="${route}",status="${status}"}`;
    const count = async (name: string) => {
      const { service } = await testService();
      const text = await (await fetch(`${service.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line ? Number(line.split(' ')[1]) : 0;
    };
    const moved = label('/lichess/api/board/game/:id/move/:move', 200);
    const refused = label('/api/board/game/:id/move/:move', 400);
    const [moves, refusals] = [await count(moved), await count(refused)];
    assert.equal((await api('POST', `/lichess/api/board/game/${game.id}/move/e2e4`, { token: whiteToken, ip: game.white.ip })).status, 200);
    assert.equal((await api('POST', `/api/board/game/${game.id}/move/e2e4`, { token: whiteToken, ip: game.white.ip })).status, 400);
    assert.deepEqual([await count(moved), await count(refused)], [moves + 1, refusals + 1]);
  });
});
