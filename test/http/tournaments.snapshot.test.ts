import assert from 'node:assert/strict';
import { as } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const MINUTE = 60_000;
let arenas = 0;
const get = (id: string) => api('GET', `/v1/tournaments/${id}`, { ip: newIp() });
const standingsPage = (id: string) => api('GET', `/v1/tournaments/${id}/standings?limit=100`, { ip: newIp() });
const join = (id: string, user: TestUser) => api('POST', `/v1/tournaments/${id}/join`, as(user));
const withdraw = (id: string, user: TestUser) => api('POST', `/v1/tournaments/${id}/withdraw`, as(user));

/** What a Tournament says must agree with itself: player_count is the joined and not withdrawn among its standings. */
function assertConsistent(t: any, where: string): void {
  assert.ok(t.standings_total <= 100, 'every standing is shown');
  const active = t.standings.filter((s: { withdrawn: boolean }) => !s.withdrawn).length;
  assert.equal(t.player_count, active, `${where}: player_count ${t.player_count} beside ${active} players not withdrawn in ${JSON.stringify(t.standings.map((s: any) => s.withdrawn))}`);
  assert.equal(t.standings_total, t.standings.length, `${where}: standings_total`);
}

/**
 * DESIGN 2.10: a Tournament is read from one snapshot. Reads race players withdrawing and joining
 * again; every answer, the reads' and the writes' own, must agree with itself.
 */
describe('a tournament read while players withdraw and join', () => {
  it('never shows a player_count that disagrees with the standings beside it', async function () {
    this.timeout(60_000);
    const creator = await createUser();
    const players = await Promise.all(Array.from({ length: 6 }, () => createUser()));
    const created = await api('POST', '/v1/tournaments', as(creator, {
      name: `Snapshot Arena no${++arenas}`, time_control: 'blitz', initial_time: 180, increment: 2,
      starts_at: new Date(Date.now() + 10 * MINUTE).toISOString(), duration_minutes: 30,
    }));
    assert.equal(created.status, 201, created.text);
    const id: string = created.body.data.id;
    for (const p of players) assert.equal((await join(id, p)).status, 200);

    let writing = true;
    let reads = 0;
    const check = (res: ApiResponse, where: string) => {
      assert.equal(res.status, 200, res.text);
      assertConsistent(res.body.data, where);
    };
    const toggle = async (p: TestUser) => {
      for (let i = 0; i < 5; i++) {
        check(await withdraw(id, p), 'withdraw');
        check(await join(id, p), 'join');
      }
    };
    const read = async () => {
      while (writing) {
        check(await get(id), 'GET');
        const page = await standingsPage(id);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.body.pagination.total, page.body.data.length, 'GET standings: the total of the same snapshot');
        reads++;
      }
    };
    const readers = Array.from({ length: 6 }, read);
    await Promise.all(players.map(toggle)).finally(() => (writing = false));
    await Promise.all(readers);
    assert.ok(reads >= 20, `${reads} reads raced the writes`);
  });
});
