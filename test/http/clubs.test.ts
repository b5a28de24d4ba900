import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { as } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { receiverPerTest } from '../support/receiver.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser } from '../helpers/ws.ts';

// No vowels and no digits that read as letters: random names cannot spell an offensive word.
const ALPHABET = 'bcdfghjkmnpqrvwxz';
const random = (n: number) => [...randomBytes(n)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
/** A name no other test uses: "Club " and 10 random letters unless told. */
const clubName = (prefix = 'Club') => `${prefix} ${random(10)}`;
/** Anonymous requests come from an address of their own (the read limit counts per address). */
const anonymous = () => ({ ip: newIp() });

const createClub = (owner: TestUser, body: object = {}) => api('POST', '/v1/clubs', as(owner, { name: clubName(), ...body }));
async function newClub(owner: TestUser, body: object = {}) {
  const res = await createClub(owner, body);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}
const getClub = (id: string, user?: TestUser) => api('GET', `/v1/clubs/${id}`, user ? as(user) : anonymous());
const join = (id: string, user: TestUser) => api('POST', `/v1/clubs/${id}/join`, as(user));
const leave = (id: string, user: TestUser) => api('POST', `/v1/clubs/${id}/leave`, as(user));
const invite = (id: string, owner: TestUser, userId: unknown) => api('POST', `/v1/clubs/${id}/invites`, as(owner, { user_id: userId }));
const users = (n: number) => Promise.all(Array.from({ length: n }, () => createUser()));
const who = (u: TestUser) => ({ id: u.id, username: u.username });
const names = (res: { body: any }) => res.body.data.map((c: { name: string }) => c.name);
const sql = async (text: string, params: unknown[]) => (await testService()).service.ctx.pool.query(text, params);

function assertError(res: { status: number; body: any; text: string }, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

describe('clubs', () => {
  describe('creating', () => {
    it('creates a club: 201 Club with the caller as owner and first member, open, without description', async () => {
      const owner = await createUser();
      const name = clubName();
      const res = await api('POST', '/v1/clubs', as(owner, { name }));
      assert.equal(res.status, 201, res.text);
      const club = res.body.data;
      assert.deepEqual(Object.keys(club).sort(), ['created_at', 'description', 'id', 'member_count', 'name', 'open', 'owner', 'role']);
      assert.deepEqual(
        { ...club, id: 0, created_at: 0 },
        { id: 0, name, description: null, open: true, owner: who(owner), member_count: 1, created_at: 0, role: 'owner' },
      );
      assert.match(club.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('keeps the description and the open flag it is given', async () => {
      const club = await newClub(await createUser(), { description: 'Blitz on Sundays.\nAll welcome.', open: false });
      assert.deepEqual([club.description, club.open], ['Blitz on Sundays.\nAll welcome.', false]);
    });

    it('trims the name and collapses runs of spaces', async () => {
      const tag = random(10);
      const club = await newClub(await createUser(), { name: `  Knight   Riders  ${tag}  ` });
      assert.equal(club.name, `Knight Riders ${tag}`);
    });

    it('accepts names of 3 and of 40 characters made of letters, digits, spaces, _ and -', async () => {
      const owner = await createUser();
      for (const name of [random(3), `A-b_9 ${random(34)}`]) {
        const res = await createClub(owner, { name });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.data.name, name);
      }
    });

    it('refuses a name shorter than 3 or longer than 40 characters once normalised, naming the field', async () => {
      const owner = await createUser();
      for (const name of ['ab', '  ab     ', random(41)]) {
        const res = await createClub(owner, { name });
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(res.body.error.details, { name: ['must be 3 to 40 characters'] }, name);
      }
    });

    it('refuses characters other than ASCII letters, digits, spaces, _ and -', async () => {
      const owner = await createUser();
      for (const name of [`Café ${random(6)}`, `Club! ${random(6)}`, `Tab\t${random(6)}`, `Line\n${random(6)}`, `Dot.${random(6)}`]) {
        const res = await createClub(owner, { name });
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details), ['name'], JSON.stringify(name));
      }
    });

    it('refuses a name or a description with direction overrides or zero-width characters (the rule every name follows)', async () => {
      const owner = await createUser();
      for (const [body, field] of [
        [{ name: `Knights\u202e ${random(6)}` }, 'name'],
        [{ name: `Zero\u200b${random(6)}` }, 'name'],
        [{ name: clubName(), description: 'Welcome \u202eto the club' }, 'description'],
        [{ name: clubName(), description: 'Hidden\u200bword' }, 'description'],
        [{ name: clubName(), description: 'Ch\u0435ss on Sundays' }, 'description'],
      ] as const) {
        const res = await createClub(owner, body);
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details), [field], JSON.stringify(body));
        assert.match(res.body.error.details[field].join(), /formatting|mix/, JSON.stringify(body));
      }
    });

    it('refuses offensive words, also when spaces or hyphens set them apart', async () => {
      const owner = await createUser();
      for (const name of ['Shit Happens', `Ass Club ${random(4)}`, `big-ass-${random(4)}`, `F U C K ${random(4)}`]) {
        const res = await createClub(owner, { name });
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(res.body.error.details, { name: ['must not contain offensive words'] }, name);
      }
    });

    it('accepts innocent words that contain an offensive one', async () => {
      const res = await createClub(await createUser(), { name: `Class Act ${random(6)}` });
      assert.equal(res.status, 201, res.text);
    });

    it('refuses a missing name, a description over 2000 characters and wrong types, naming each field', async () => {
      const owner = await createUser();
      const cases: Array<[object, string[]]> = [
        [{}, ['name']],
        [{ name: 42 }, ['name']],
        [{ name: clubName(), description: 'x'.repeat(2001) }, ['description']],
        [{ name: clubName(), description: 5, open: 'yes' }, ['description', 'open']],
      ];
      for (const [body, fields] of cases) {
        const res = await api('POST', '/v1/clubs', as(owner, body));
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details).sort(), fields, JSON.stringify(body).slice(0, 80));
      }
    });

    it('refuses a name another club has, ignoring case: 409 CLUB_NAME_TAKEN', async () => {
      const [a, b] = await users(2);
      const club = await newClub(a);
      const res = await createClub(b, { name: `  ${club.name.toUpperCase().replace(' ', '   ')} ` });
      assertError(res, 409, 'CLUB_NAME_TAKEN');
    });

    it('refuses an 11th club to one owner with 409 CLUB_LIMIT', async () => {
      const owner = await createUser();
      for (let i = 0; i < 10; i++) await newClub(owner);
      assertError(await createClub(owner), 409, 'CLUB_LIMIT');
    });

    it('needs a token to create a club: 401 UNAUTHORIZED', async () => {
      assertError(await api('POST', '/v1/clubs', { body: { name: clubName() }, ...anonymous() }), 401, 'UNAUTHORIZED');
    });
  });

  describe('under concurrency', () => {
    it('lets exactly one of two simultaneous creates whose names differ only in case through', async () => {
      const [a, b] = await users(2);
      const name = clubName();
      const answers = await Promise.all([createClub(a, { name }), createClub(b, { name: name.toUpperCase() })]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409]);
      assert.equal(answers.find((r) => r.status === 409)!.body.error.code, 'CLUB_NAME_TAKEN');
    });

    it('gives one owner exactly 10 clubs when 14 creates race', async () => {
      const owner = await createUser();
      const answers = await Promise.all(Array.from({ length: 14 }, () => createClub(owner)));
      assert.equal(answers.filter((r) => r.status === 201).length, 10);
      assert.deepEqual(new Set(answers.filter((r) => r.status !== 201).map((r) => r.body.error.code)), new Set(['CLUB_LIMIT']));
      const { rows } = await sql('SELECT count(*)::int AS n FROM clubs WHERE owner_id = $1', [owner.id]);
      assert.equal(rows[0].n, 10);
    });

    it('keeps member_count exact while 20 users join at once, then leave while 10 others join', async () => {
      const [owner, ...crowd] = await users(31);
      const club = await newClub(owner);
      const [first, later] = [crowd.slice(0, 20), crowd.slice(20)];
      const joined = await Promise.all(first.map((u) => join(club.id, u)));
      assert.ok(joined.every((r) => r.status === 200));
      assert.equal((await getClub(club.id)).body.data.member_count, 21);
      const moved = await Promise.all([...first.map((u) => leave(club.id, u)), ...later.map((u) => join(club.id, u))]);
      assert.deepEqual(moved.map((r) => r.status), [...first.map(() => 204), ...later.map(() => 200)]);
      assert.equal((await getClub(club.id)).body.data.member_count, 11);
      const { rows } = await sql('SELECT count(*)::int AS n FROM club_members WHERE club_id = $1', [club.id]);
      assert.equal(rows[0].n, 11);
    });
  });

  describe('reading', () => {
    it('shows a club to anyone without a token, with role null', async () => {
      const club = await newClub(await createUser());
      const res = await getClub(club.id);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { ...club, role: null });
    });

    it("gives each caller their own role: owner, member, invited or null", async () => {
      const [owner, member, invitee, stranger] = await users(4);
      const club = await newClub(owner, { open: false });
      assert.equal((await invite(club.id, owner, member.id)).status, 201);
      assert.equal((await join(club.id, member)).status, 200);
      assert.equal((await invite(club.id, owner, invitee.id)).status, 201);
      const roles = await Promise.all([owner, member, invitee, stranger].map(async (u) => (await getClub(club.id, u)).body.data.role));
      assert.deepEqual(roles, ['owner', 'member', 'invited', null]);
    });

    it('answers 404 CLUB_NOT_FOUND for an unknown or malformed id on every route', async () => {
      const user = await createUser();
      for (const id of [randomUUID(), 'not-a-uuid']) {
        for (const [method, path, body] of [
          ['GET', `/v1/clubs/${id}`],
          ['GET', `/v1/clubs/${id}/members`],
          ['POST', `/v1/clubs/${id}/join`],
          ['POST', `/v1/clubs/${id}/leave`],
          ['POST', `/v1/clubs/${id}/invites`, { user_id: randomUUID() }],
          ['DELETE', `/v1/clubs/${id}`],
        ] as const) {
          assertError(await api(method, path, as(user, body)), 404, 'CLUB_NOT_FOUND');
        }
      }
    });

    it('refuses an invalid token on a public read: 401 UNAUTHORIZED', async () => {
      const club = await newClub(await createUser());
      assertError(await api('GET', `/v1/clubs/${club.id}`, { token: 'not-a-token', ip: newIp() }), 401, 'UNAUTHORIZED');
    });
  });

  describe('listing', () => {
    /** Clubs named `${tag} <suffix>`, created one after another; `q=tag` finds exactly them. */
    async function clubsTagged(owner: TestUser, suffixes: string[], body: object = {}) {
      const tag = random(10);
      const clubs = [];
      for (const suffix of suffixes) clubs.push(await newClub(owner, { name: `${tag} ${suffix}`, ...body }));
      return { tag, clubs };
    }
    const list = (query: string, user?: TestUser) => api('GET', `/v1/clubs?${query}`, user ? as(user) : anonymous());

    it('finds clubs by a case-insensitive substring of the name', async () => {
      const owner = await createUser();
      const { tag } = await clubsTagged(owner, ['Alpha', 'Beta']);
      const res = await list(`q=${tag.toUpperCase().slice(2)}&sort=name`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), [`${tag} Alpha`, `${tag} Beta`]);
    });

    it('matches % and _ in q literally', async () => {
      const owner = await createUser();
      const tag = random(10);
      await newClub(owner, { name: `${tag}_x` });
      await newClub(owner, { name: `${tag}ax` });
      assert.deepEqual(names(await list(`q=${tag}_`)), [`${tag}_x`]);
      assert.deepEqual(names(await list(`q=${tag}%25`)), []);
    });

    it('sorts by members, most first, by default; ties by name', async () => {
      const [owner, x, y] = await users(3);
      const { tag, clubs } = await clubsTagged(owner, ['One', 'Two', 'Three', 'Four']);
      for (const u of [x, y]) await join(clubs[2].id, u);
      await join(clubs[1].id, x);
      assert.deepEqual(names(await list(`q=${tag}`)), ['Three', 'Two', 'Four', 'One'].map((s) => `${tag} ${s}`));
      assert.deepEqual(names(await list(`q=${tag}&sort=members&order=asc`)).slice(0, 2), ['Four', 'One'].map((s) => `${tag} ${s}`));
    });

    it('sorts by name A to Z with sort=name, Z to A with order=desc or sort=-name, ignoring case', async () => {
      const { tag } = await clubsTagged(await createUser(), ['b', 'C', 'a']);
      const az = ['a', 'b', 'C'].map((s) => `${tag} ${s}`);
      assert.deepEqual(names(await list(`q=${tag}&sort=name`)), az);
      assert.deepEqual(names(await list(`q=${tag}&sort=name&order=desc`)), [...az].reverse());
      assert.deepEqual(names(await list(`q=${tag}&sort=-name&order=asc`)), [...az].reverse());
    });

    it('sorts by created_at newest first, oldest first with order=asc; -created_at wins over order', async () => {
      const { tag, clubs } = await clubsTagged(await createUser(), ['first', 'second', 'third']);
      const created = clubs.map((c) => c.name);
      assert.deepEqual(names(await list(`q=${tag}&sort=created_at`)), [...created].reverse());
      assert.deepEqual(names(await list(`q=${tag}&sort=created_at&order=asc`)), created);
      assert.deepEqual(names(await list(`q=${tag}&sort=-created_at&order=asc`)), [...created].reverse());
    });

    it('pages with page and limit, reporting total, total_pages, hasNext and hasPrev', async () => {
      const { tag } = await clubsTagged(await createUser(), ['a', 'b', 'c', 'd', 'e']);
      const res = await list(`q=${tag}&sort=name&limit=2&page=2`);
      assert.deepEqual(names(res), [`${tag} c`, `${tag} d`]);
      assert.deepEqual(res.body.pagination, { page: 2, limit: 2, total: 5, total_pages: 3, totalPages: 3, hasNext: true, hasPrev: true });
    });

    it('reports an empty list with total 0 and total_pages 0', async () => {
      const res = await list(`q=${random(12)}`);
      assert.deepEqual(res.body.data, []);
      assert.deepEqual([res.body.pagination.total, res.body.pagination.total_pages, res.body.pagination.hasNext], [0, 0, false]);
    });

    it('lists with mine=true the clubs the caller owns or belongs to, not those they are invited to', async () => {
      const [me, other] = await users(2);
      const owned = await newClub(me);
      const joined = await newClub(other);
      const invited = await newClub(other, { open: false });
      await newClub(other);
      await join(joined.id, me);
      await invite(invited.id, other, me.id);
      const res = await list('mine=true&sort=name', me);
      assert.deepEqual(res.body.data.map((c: any) => [c.id, c.role]).sort(), [[owned.id, 'owner'], [joined.id, 'member']].sort());
      assert.equal(res.body.pagination.total, 2);
    });

    it("shows the caller's role on listed clubs, and null without a token", async () => {
      const [owner, member] = await users(2);
      const { tag, clubs } = await clubsTagged(owner, ['a', 'b']);
      await join(clubs[1].id, member);
      const roles = async (user?: TestUser) => (await list(`q=${tag}&sort=name`, user)).body.data.map((c: any) => c.role);
      assert.deepEqual(await roles(member), [null, 'member']);
      assert.deepEqual(await roles(), [null, null]);
    });

    it('needs a token for mine=true: 401 UNAUTHORIZED', async () => {
      assertError(await list('mine=true'), 401, 'UNAUTHORIZED');
    });

    it('refuses unknown sort, order and mine values and a bad page or limit, naming each field', async () => {
      const res = await list('sort=rating&order=up&mine=yes&page=0&limit=101');
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.error.details).sort(), ['limit', 'mine', 'order', 'page', 'sort']);
    });
  });

  describe('members', () => {
    it('lists the owner first, then the members by joining time', async () => {
      const [owner, a, b] = await users(3);
      const club = await newClub(owner);
      await join(club.id, b);
      await join(club.id, a);
      const res = await api('GET', `/v1/clubs/${club.id}/members`, as(owner));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data.map((m: any) => [m.user, m.role]), [[who(owner), 'owner'], [who(b), 'member'], [who(a), 'member']]);
      assert.ok(res.body.data.every((m: any) => /Z$/.test(m.joined_at)));
      assert.equal(res.body.pagination.total, 3);
    });

    it('shows the members to a member as to the owner, page by page', async () => {
      const [owner, a, b] = await users(3);
      const club = await newClub(owner);
      await join(club.id, a);
      await join(club.id, b);
      const res = await api('GET', `/v1/clubs/${club.id}/members?limit=1&page=3`, as(a));
      assert.deepEqual(res.body.data.map((m: any) => m.user.id), [b.id]);
      assert.deepEqual([res.body.pagination.total, res.body.pagination.hasNext], [3, false]);
    });

    it('shows the members to anyone, without a token too, and never the invitees (DESIGN 2.10)', async () => {
      const [owner, member, invitee, stranger] = await users(4);
      const club = await newClub(owner);
      await join(club.id, member);
      await invite(club.id, owner, invitee.id);
      const seen = await Promise.all([anonymous(), as(invitee), as(stranger)].map((o) => api('GET', `/v1/clubs/${club.id}/members`, o)));
      for (const res of seen) {
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.map((m: any) => Object.keys(m).sort()), [['joined_at', 'role', 'user'], ['joined_at', 'role', 'user']]);
        assert.deepEqual(res.body.data.map((m: any) => [m.user, m.role]), [[who(owner), 'owner'], [who(member), 'member']]);
        assert.equal(res.body.pagination.total, 2);
      }
    });

    it('answers an unknown club 404 CLUB_NOT_FOUND without a token', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) assertError(await api('GET', `/v1/clubs/${id}/members`, anonymous()), 404, 'CLUB_NOT_FOUND');
    });

    it('documents the members list as public: a token is optional', async () => {
      const { body: doc } = await api('GET', '/v1/openapi.json');
      assert.deepEqual(doc.paths['/clubs/{id}/members'].get.security, [{}, { bearer: [] }, { personalToken: [] }]);
    });
  });

  describe('joining and leaving', () => {
    it('joins an open club: 200 Club with role member, counted', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner);
      const res = await join(club.id, user);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { ...club, member_count: 2, role: 'member' });
    });

    it('answers a repeated join with 200 and the state as it is, counting nobody twice', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner);
      const first = await join(club.id, user);
      const again = await join(club.id, user);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, first.body.data);
    });

    it("answers the owner's join with 200 and role owner", async () => {
      const owner = await createUser();
      const club = await newClub(owner, { open: false });
      const res = await join(club.id, owner);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data, club);
    });

    it('refuses to let anyone uninvited join a closed club: 403 FORBIDDEN', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner, { open: false });
      assertError(await join(club.id, user), 403, 'FORBIDDEN');
    });

    it('lets an invitee join a closed club, which uses the invitation up', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner, { open: false });
      await invite(club.id, owner, user.id);
      const res = await join(club.id, user);
      assert.deepEqual([res.status, res.body.data.role, res.body.data.member_count], [200, 'member', 2]);
      assert.equal((await leave(club.id, user)).status, 204);
      assertError(await join(club.id, user), 403, 'FORBIDDEN');
    });

    it('leaves a club: 204, uncounted, role null after', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner);
      await join(club.id, user);
      const res = await leave(club.id, user);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      const after = (await getClub(club.id, user)).body.data;
      assert.deepEqual([after.member_count, after.role], [1, null]);
    });

    it('refuses to let the owner leave: 409 CLUB_OWNER_CANNOT_LEAVE', async () => {
      const owner = await createUser();
      const club = await newClub(owner);
      assertError(await leave(club.id, owner), 409, 'CLUB_OWNER_CANNOT_LEAVE');
    });

    it('answers a leave by someone who is not a member with 404 NOT_FOUND', async () => {
      const [owner, invitee, stranger] = await users(3);
      const club = await newClub(owner);
      await invite(club.id, owner, invitee.id);
      for (const user of [invitee, stranger]) assertError(await leave(club.id, user), 404, 'NOT_FOUND');
    });

    it('needs a token to join or leave: 401 UNAUTHORIZED', async () => {
      const club = await newClub(await createUser());
      for (const verb of ['join', 'leave']) assertError(await api('POST', `/v1/clubs/${club.id}/${verb}`, anonymous()), 401, 'UNAUTHORIZED');
    });
  });

  describe('invitations', () => {
    it('limits invitations to 10 a minute per owner (429 RATE_LIMIT_EXCEEDED), against spam', async () => {
      const [owner, ...invitees] = await users(12);
      const club = await newClub(owner);
      for (const u of invitees.slice(0, 10)) assert.equal((await invite(club.id, owner, u.id)).status, 201);
      const over = await invite(club.id, owner, invitees[10].id);
      assert.equal(over.status, 429);
      assert.equal(over.body.error.code, 'RATE_LIMIT_EXCEEDED');
      assert.equal(over.headers.get('x-ratelimit-limit'), '10');
    });

    it('invites a user: 201 {club_id, user, invited_at}, and their role becomes invited', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner, { open: false });
      const res = await invite(club.id, owner, user.id);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual({ ...res.body.data, invited_at: 0 }, { club_id: club.id, user: who(user), invited_at: 0 });
      assert.match(res.body.data.invited_at, /Z$/);
      assert.equal((await getClub(club.id, user)).body.data.role, 'invited');
    });

    it('answers a repeated invitation with 200 and the first invitation', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner, { open: false });
      const first = await invite(club.id, owner, user.id);
      const again = await invite(club.id, owner, user.id.toUpperCase());
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.data, first.body.data);
    });

    it('lets open clubs invite too', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner);
      assert.equal((await invite(club.id, owner, user.id)).status, 201);
    });

    it('lets only the owner invite: 403 FORBIDDEN for a member and for anyone else', async () => {
      const [owner, member, stranger, target] = await users(4);
      const club = await newClub(owner);
      await join(club.id, member);
      for (const user of [member, stranger]) assertError(await invite(club.id, user, target.id), 403, 'FORBIDDEN');
    });

    it('refuses inviting yourself: 400 VALIDATION_ERROR on user_id', async () => {
      const owner = await createUser();
      const club = await newClub(owner);
      const res = await invite(club.id, owner, owner.id);
      assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.error.details), ['user_id']);
    });

    it('answers an unknown or malformed user_id with 404 USER_NOT_FOUND', async () => {
      const owner = await createUser();
      const club = await newClub(owner);
      for (const userId of [randomUUID(), 'not-a-uuid']) assertError(await invite(club.id, owner, userId), 404, 'USER_NOT_FOUND');
    });

    it('refuses a missing or non-string user_id, naming it', async () => {
      const owner = await createUser();
      const club = await newClub(owner);
      for (const body of [{}, { user_id: 7 }]) {
        const res = await api('POST', `/v1/clubs/${club.id}/invites`, as(owner, body));
        assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(Object.keys(res.body.error.details), ['user_id']);
      }
    });

    it('refuses inviting a member: 409 ALREADY_MEMBER', async () => {
      const [owner, member] = await users(2);
      const club = await newClub(owner);
      await join(club.id, member);
      assertError(await invite(club.id, owner, member.id), 409, 'ALREADY_MEMBER');
    });

    it('counts invitations against their own limit of 10 a minute', async () => {
      const [owner, user] = await users(2);
      const club = await newClub(owner);
      const res = await invite(club.id, owner, user.id);
      assert.equal(res.headers.get('x-ratelimit-limit'), '10');
    });

    describe('after 30 days', () => {
      /** Moves the invitation back in time, as 31 days of waiting would. */
      const age = (clubId: string, userId: string, days: number) =>
        sql(`UPDATE club_invitations SET invited_at = invited_at - make_interval(days => $3) WHERE club_id = $1 AND user_id = $2`, [clubId, userId, days]);

      it('treats an invitation older than 30 days as absent: role null, a closed club refuses the join', async () => {
        const [owner, user] = await users(2);
        const club = await newClub(owner, { open: false });
        await invite(club.id, owner, user.id);
        await age(club.id, user.id, 31);
        assert.equal((await getClub(club.id, user)).body.data.role, null);
        assertError(await join(club.id, user), 403, 'FORBIDDEN');
      });

      it('keeps an invitation of 29 days', async () => {
        const [owner, user] = await users(2);
        const club = await newClub(owner, { open: false });
        await invite(club.id, owner, user.id);
        await age(club.id, user.id, 29);
        assert.equal((await join(club.id, user)).status, 200);
      });

      it('invites anew after a lapse: 201 with a new invited_at', async () => {
        const [owner, user] = await users(2);
        const club = await newClub(owner, { open: false });
        const first = await invite(club.id, owner, user.id);
        await age(club.id, user.id, 31);
        const again = await invite(club.id, owner, user.id);
        assert.equal(again.status, 201, again.text);
        assert.ok(again.body.data.invited_at >= first.body.data.invited_at);
        assert.equal((await getClub(club.id, user)).body.data.role, 'invited');
      });
    });
  });

  describe('events', () => {
    const hooks = receiverPerTest();

    it("sends club.invite {club, invited_by} to the invitee's webhooks once, and nothing for a repeated invitation", async () => {
      const [owner, user] = await users(2);
      const hook = await api('POST', '/v1/webhooks', as(user, { url: hooks.url, events: ['club.invite'], secret: 'a-secret-of-at-least-16-chars' }));
      assert.equal(hook.status, 201, hook.text);
      const [club, marker] = [await newClub(owner, { open: false }), await newClub(owner)];
      assert.equal((await invite(club.id, owner, user.id)).status, 201);
      assert.equal((await invite(club.id, owner, user.id)).status, 200);
      // A later invitation is fanned out after the repeat would have been: once it is here, all is.
      assert.equal((await invite(marker.id, owner, user.id)).status, 201);
      const received = (await hooks.receiver.waitFor(2)).map((r) => [r.json.type, r.json.data]);
      const expected = [club, marker].map((c) => ['club.invite', { club: { id: c.id, name: c.name }, invited_by: who(owner) }]);
      const byClub = (x: any[]) => x.sort((p, q) => p[1].club.id.localeCompare(q[1].club.id));
      assert.deepEqual(byClub(received), byClub(expected));
      const deliveries = await api('GET', `/v1/webhooks/${hook.body.data.id}/deliveries`, as(user));
      assert.equal(deliveries.body.pagination.total, 2);
    });

    it('tells the invitee on their user: channel once, and nothing for a repeated invitation', async () => {
      const [owner, user] = await users(2);
      const [club, marker] = [await newClub(owner, { open: false }), await newClub(owner)];
      const socket = await subscribeUser(user);
      await invite(club.id, owner, user.id);
      const told = await socket.next('club_invite');
      assert.deepEqual(
        { ...told, ts: 0 },
        { channel: `user:${user.id}`, type: 'club_invite', club: { id: club.id, name: club.name }, invited_by: who(owner), ts: 0 },
      );
      await invite(club.id, owner, user.id);
      await invite(marker.id, owner, user.id);
      assert.equal((await socket.next('club_invite')).club.id, marker.id, 'the repeat told nothing');
      socket.close();
    });
  });

  describe('deleting', () => {
    it('deletes a club: 204, then 404 CLUB_NOT_FOUND, and its name is free again', async () => {
      const owner = await createUser();
      const club = await newClub(owner);
      const res = await api('DELETE', `/v1/clubs/${club.id}`, as(owner));
      assert.equal(res.status, 204, res.text);
      assertError(await getClub(club.id), 404, 'CLUB_NOT_FOUND');
      assert.equal((await createClub(owner, { name: club.name })).status, 201);
    });

    it('lets only the owner delete: 403 FORBIDDEN for a member and for anyone else', async () => {
      const [owner, member, stranger] = await users(3);
      const club = await newClub(owner);
      await join(club.id, member);
      for (const user of [member, stranger]) assertError(await api('DELETE', `/v1/clubs/${club.id}`, as(user)), 403, 'FORBIDDEN');
      assert.equal((await getClub(club.id)).status, 200);
    });

    it('frees a place under the limit of 10', async () => {
      const owner = await createUser();
      const clubs = [];
      for (let i = 0; i < 10; i++) clubs.push(await newClub(owner));
      await api('DELETE', `/v1/clubs/${clubs[0].id}`, as(owner));
      assert.equal((await createClub(owner)).status, 201);
    });
  });

  it('documents every club route with its error codes', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json', anonymous());
    const invites = doc.paths['/clubs/{id}/invites'].post;
    assert.ok(invites.responses['201'] && invites.tags.includes('Clubs'));
    for (const code of ['CLUB_NOT_FOUND', 'USER_NOT_FOUND']) assert.match(invites.responses['404'].description, new RegExp(code));
    assert.match(invites.responses['409'].description, /ALREADY_MEMBER/);
    assert.ok(doc.paths['/clubs'].get.responses['200'].content['application/json'].schema.properties.pagination);
  });
});
