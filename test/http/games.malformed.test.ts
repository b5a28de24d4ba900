import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createActiveGame } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { expectNo500, malformedBodies, malformedBodyArbitrary, type MalformedBody } from '../helpers/malformed.ts';
import { createUser } from '../helpers/users.ts';

const freshToken = async () => (await createUser()).accessToken;

describe('game endpoints and malformed bodies', function () {
  this.timeout(60_000);

  it('POST /games answers every malformed body with a 4xx envelope, never 500', async () => {
    // The challenge limit is 5 a minute per user: a new challenger every 4 bodies.
    const fields = ['type', 'opponent_id', 'time_control', 'initial_time', 'increment', 'rated', 'color'];
    let sent = 0;
    let token = '';
    const send = async (c: MalformedBody) => {
      if (sent++ % 4 === 0) token = await freshToken();
      const res = await api('POST', '/v1/games', { rawBody: c.rawBody, headers: c.headers, token, ip: newIp() });
      const what = `${c.name} → ${res.status} ${res.text.slice(0, 200)}`;
      assert.ok(res.status >= 400 && res.status < 500, what);
      assert.notEqual(res.body?.error?.code, 'RATE_LIMIT_EXCEEDED', what);
      assert.equal(res.body?.success, false, what);
      assert.equal(typeof res.body.error.code, 'string', what);
    };
    for (const c of malformedBodies(fields)) await send(c);
    await fc.assert(fc.asyncProperty(malformedBodyArbitrary(fields), send), { numRuns: 20 });
  });

  it('POST /games/{id}/moves answers every malformed body with a 4xx envelope, never 500', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(a, b);
    await expectNo500('POST', `/v1/games/${game.id}/moves`, { fields: ['from', 'to', 'promotion'], token: a.accessToken });
  });

  it('PATCH /games/{id}/move answers every malformed body with a 4xx envelope, never 500', async () => {
    await expectNo500('PATCH', `/v1/games/${randomUUID()}/move`, { fields: ['from', 'to', 'promotion'], token: freshToken });
  });

  it('POST /games/{id}/draw/{offer_id} answers every malformed body with a 4xx envelope, never 500', async () => {
    await expectNo500('POST', `/v1/games/${randomUUID()}/draw/${randomUUID()}`, { fields: ['accept'], token: freshToken });
  });

  for (const action of ['accept', 'decline', 'cancel', 'resign', 'draw']) {
    it(`POST /games/{id}/${action} ignores or refuses any body, never 500`, async () => {
      await expectNo500('POST', `/v1/games/${randomUUID()}/${action}`, { token: freshToken, runs: 10 });
    });
  }
});
