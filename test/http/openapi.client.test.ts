import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import createClient from 'openapi-fetch';
import openapiTS from 'openapi-typescript';
import type { components, paths } from '../../src/web/types/chessApi.js';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { uniqueEmail, uniqueUsername } from '../helpers/users.ts';

/** The typed client's declarations, made by openapi-typescript from the document and committed beside the web app's types. */
const CLIENT_TYPES = new URL('../../src/web/types/chessApi.d.ts', import.meta.url);

describe('typed client generated from the OpenAPI document', () => {
  it('is what openapi-typescript makes of the document today (regenerate: UPDATE_OPENAPI_CLIENT=1)', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const generated = await openapiTS(doc, { silent: true });
    if (process.env.UPDATE_OPENAPI_CLIENT === '1') writeFileSync(CLIENT_TYPES, generated);
    assert.ok(generated.includes('getGame: {') && generated.includes('Game: {'), 'operation ids and named schemas');
    assert.equal(
      readFileSync(CLIENT_TYPES, 'utf8'),
      generated,
      'src/web/types/chessApi.d.ts is stale: UPDATE_OPENAPI_CLIENT=1 npx mocha test/http/openapi.client.test.ts',
    );
  });

  it('plays a short game through openapi-fetch, typed end to end', async () => {
    const { service } = await testService();
    const client = createClient<paths>({ baseUrl: `${service.url}/v1` });
    type Player = { id: string; token: string; ip: string };
    const signUp = async (): Promise<Player> => {
      const ip = newIp();
      const { data, error } = await client.POST('/auth/signup', {
        body: { email: uniqueEmail('typed'), username: uniqueUsername('typed'), password: `pw-${randomBytes(4).toString('hex')}-1` },
        headers: { 'x-forwarded-for': ip },
      });
      assert.ok(data, JSON.stringify(error));
      return { id: data.data.user.id, token: data.data.session.access_token, ip };
    };
    const as = (p: Player) => ({ authorization: `Bearer ${p.token}`, 'x-forwarded-for': p.ip });
    const [white, black] = [await signUp(), await signUp()];

    const created = await client.POST('/games', {
      body: { type: 'challenge', opponent_id: black.id, time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' },
      headers: as(white),
    });
    assert.ok(created.data, JSON.stringify(created.error));
    const pending = created.data.data;
    assert.equal(pending.status, 'pending');
    const accepted = await client.POST('/games/{id}/accept', { params: { path: { id: pending.id } }, headers: as(black) });
    assert.ok(accepted.data, JSON.stringify(accepted.error));
    const game: components['schemas']['Game'] = accepted.data.data;
    assert.equal(game.status, 'active');

    const line: [Player, string, string][] = [[white, 'f2', 'f3'], [black, 'e7', 'e5'], [white, 'g2', 'g4'], [black, 'd8', 'h4']];
    let last: components['schemas']['MoveResult'] | undefined;
    for (const [who, from, to] of line) {
      const { data, error } = await client.POST('/games/{id}/moves', { params: { path: { id: game.id } }, body: { from, to }, headers: as(who) });
      assert.ok(data, JSON.stringify(error));
      last = data.data;
    }
    assert.equal(last?.move.san, 'Qh4#');
    assert.equal(last?.game.in_checkmate, true);

    const read = await client.GET('/games/{id}', { params: { path: { id: game.id } }, headers: as(white) });
    assert.ok(read.data);
    assert.deepEqual([read.data.data.status, read.data.data.result, read.data.data.winner, read.data.data.termination], ['finished', '0-1', 'black', 'checkmate']);

    const refused = await client.POST('/games/{id}/moves', { params: { path: { id: game.id } }, body: { from: 'e2', to: 'e4' }, headers: as(white) });
    assert.equal(refused.response.status, 409);
    assert.equal(refused.error?.error.code, 'GAME_NOT_ACTIVE');
  });
});
