import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUNDLED_PUZZLES, importPuzzleFile } from '../../src/services/puzzleImport.ts';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher } from '../helpers/smtp.ts';
import { uniqueEmail, uniqueUsername } from '../helpers/users.ts';
import { Conformance } from '../support/openapiConformance.ts';
import { WebhookReceiver } from '../support/receiver.ts';

type User = { id: string; email: string; username: string; password: string; token: string; refresh: string; ip: string };

/**
 * Every operation of the OpenAPI document, driven against the running service with real data
 * (users signed up, games played, clubs, tournaments, webhooks), each answer checked against the
 * document: status, headers, body (JSON Schema 2020-12). An operation of the document the drive
 * list lacks, or an answer the document does not describe, fails.
 */
describe('OpenAPI document against the service', function () {
  this.timeout(120_000);
  let c: Conformance;
  const hooks = new WebhookReceiver();
  let hooksUrl = '';

  before(async () => {
    const { body } = await api('GET', '/v1/openapi.json');
    c = new Conformance(body);
    hooksUrl = await hooks.start();
  });
  after(() => hooks.stop());

  /** Signs a user up through signUp (checked), from an address of their own. */
  async function signUp(): Promise<User> {
    const ip = newIp();
    const body = { email: uniqueEmail('oa'), username: uniqueUsername('oa'), password: `pw-${randomBytes(6).toString('hex')}-9` };
    const res = await c.call('signUp', { body, ip, expect: 201 });
    const { user, session } = res.body.data;
    return { id: user.id, email: body.email, username: body.username, password: body.password, token: session.access_token, refresh: session.refresh_token, ip };
  }
  const as = (u: User, o: object = {}) => ({ token: u.token, ip: u.ip, ...o });

  /** The drive list: per operationId, calls that reach it (success first, then its refusals). */
  const drive: Record<string, () => Promise<void>> = {};
  let a: User, b: User, d: User;
  let gameId = '';
  let finishedId = '';

  // ---- accounts --------------------------------------------------------------------------
  drive.signUp = async () => {
    a = await signUp();
    b = await signUp();
    d = await signUp();
    await c.call('signUp', { body: { email: a.email, username: uniqueUsername('oa'), password: 'abcdefg1' }, ip: newIp(), expect: 409 });
    await c.call('signUp', { body: { email: 'not-an-email', username: 'x', password: 'short' }, ip: newIp(), expect: 400 });
  };
  drive.logIn = async () => {
    await c.call('logIn', { body: { email: d.email, password: d.password }, ip: newIp(), expect: 200 });
    await c.call('logIn', { body: { email: d.email, password: 'wrong-password-1' }, ip: newIp(), expect: 401 });
  };
  drive.logInWithGoogle = async () => {
    await c.call('logInWithGoogle', { ip: newIp(), expect: 501 });
  };
  drive.refreshSession = async () => {
    const session = (await c.call('logIn', { body: { email: d.email, password: d.password }, ip: newIp(), expect: 200 })).body.data.session;
    await c.call('refreshSession', { body: { refresh_token: session.refresh_token }, ip: newIp(), expect: 200 });
    await c.call('refreshSession', { body: { refresh_token: session.refresh_token }, ip: newIp(), expect: 401 });
  };
  drive.logOut = async () => {
    const session = (await c.call('logIn', { body: { email: d.email, password: d.password }, ip: newIp(), expect: 200 })).body.data.session;
    await c.call('logOut', { token: session.access_token, ip: newIp(), expect: 204 });
    await c.call('logOut', { token: session.access_token, ip: newIp(), expect: 401 });
  };
  drive.verifyEmail = async () => {
    const { mail } = await testService();
    const token = MailCatcher.tokenOf(await mail.waitFor(d.email, (m) => m.raw.includes('/verify-email?token=')));
    await c.call('verifyEmail', { body: { token }, ip: newIp(), expect: 200 });
    await c.call('verifyEmail', { body: { token: 'nothing-like-a-token' }, ip: newIp() });
  };
  drive.resendVerification = async () => {
    await c.call('resendVerification', { body: { email: a.email }, ip: newIp(), expect: 200 });
  };
  drive.requestPasswordReset = async () => {
    // Past the auth class limit of one address: 429 with Retry-After.
    const ip = newIp();
    for (let i = 0; i < 5; i++) await c.call('requestPasswordReset', { body: { email: uniqueEmail('nobody') }, ip, expect: 200 });
    await c.call('requestPasswordReset', { body: { email: uniqueEmail('nobody') }, ip, expect: 429 });
  };
  drive.resetPassword = async () => {
    const { mail } = await testService();
    await c.call('requestPasswordReset', { body: { email: d.email }, ip: newIp(), expect: 200 });
    const token = MailCatcher.tokenOf(await mail.waitFor(d.email, (m) => m.raw.includes('/reset-password?token=')));
    d.password = `pw-${randomBytes(6).toString('hex')}-7`;
    await c.call('resetPassword', { body: { token, password: d.password }, ip: newIp(), expect: 200 });
    d.token = (await c.call('logIn', { body: { email: d.email, password: d.password }, ip: newIp(), expect: 200 })).body.data.session.access_token;
  };
  drive.getMe = async () => {
    await c.call('getMe', as(a, { expect: 200 }));
    await c.call('getMe', { token: 'not.a.token', ip: newIp(), expect: 401 });
  };
  drive.updateMe = async () => {
    await c.call('updateMe', as(a, { body: { full_name: 'Ada Player', country: 'de', avatar_url: 'https://example.com/a.png' }, expect: 200 }));
    await c.call('updateMe', as(a, { body: { username: b.username }, expect: 409 }));
  };
  drive.changePassword = async () => {
    const password = `pw-${randomBytes(6).toString('hex')}-5`;
    await c.call('changePassword', as(d, { body: { current_password: d.password, new_password: password }, expect: 200 }));
    d.password = password;
    await c.call('changePassword', as(d, { body: { current_password: 'wrong-one-1', new_password: 'another-pw-2' } }));
  };
  drive.changeEmail = async () => {
    await c.call('changeEmail', as(d, { body: { password: d.password, email: uniqueEmail('moved') }, expect: 200 }));
  };
  drive.getUserByUsername = async () => {
    await c.call('getUserByUsername', as(a, { params: { username: b.username }, expect: 200 }));
    await c.call('getUserByUsername', as(a, { params: { username: 'nobody_here_x' }, expect: 404 }));
    await c.call('getUserByUsername', { params: { username: b.username }, ip: newIp(), expect: 200 });
  };
  drive.searchUsers = async () => {
    await c.call('searchUsers', as(a, { query: { q: b.username.slice(0, 8) }, expect: 200 }));
    await c.call('searchUsers', as(a, { query: {}, expect: 400 }));
  };
  drive.getUser = async () => {
    await c.call('getUser', as(a, { params: { id: b.id }, expect: 200 }));
    // Signed out (DESIGN 2.14): the same public profile.
    await c.call('getUser', { params: { id: b.id }, ip: newIp(), expect: 200 });
  };
  drive.getAvatar = async () => {
    await c.call('getAvatar', { params: { id: b.id }, ip: newIp(), expect: 200 });
  };

  // ---- personal access tokens ----------------------------------------------------------
  let personal = { id: '', token: '' };
  drive.createPersonalToken = async () => {
    const body = { description: 'my bot', scopes: ['games:read'] };
    personal = (await c.call('createPersonalToken', as(a, { body, expect: 201 }))).body.data;
    await c.call('createPersonalToken', as(a, { body: { description: '', scopes: ['root'] }, expect: 400 }));
    // A personal token: the scope it has (200), one it lacks (MISSING_SCOPE), a session-only operation (SESSION_REQUIRED).
    await c.call('getGame', { params: { id: randomUUID() }, token: personal.token, ip: newIp(), expect: 404 });
    await c.call('createClub', { body: { name: 'Token club' }, token: personal.token, ip: newIp(), expect: 403 });
    await c.call('createPersonalToken', { body, token: personal.token, ip: newIp(), expect: 403 });
  };
  drive.listPersonalTokens = async () => {
    await c.call('listPersonalTokens', as(a, { expect: 200 }));
    await c.call('listPersonalTokens', { token: personal.token, ip: newIp(), expect: 403 });
  };
  drive.deletePersonalToken = async () => {
    await c.call('deletePersonalToken', as(a, { params: { id: personal.id }, expect: 204 }));
    await c.call('deletePersonalToken', as(a, { params: { id: personal.id }, expect: 404 }));
  };

  // ---- webhooks (first: an endpoint of A's then receives the game and social events) ----
  let webhookId = '';
  drive.createWebhook = async () => {
    const events = ['game.started', 'game.move', 'game.finished', 'friend.request', 'friend.accepted', 'club.invite', 'tournament.started'];
    const res = await c.call('createWebhook', as(a, { body: { url: hooksUrl, events, secret: 'a-secret-of-16-characters' }, expect: 201 }));
    webhookId = res.body.data.id;
    for (const who of [b]) await c.call('createWebhook', as(who, { body: { url: hooksUrl, events, secret: 'a-secret-of-16-characters' }, expect: 201 }));
    await c.call('createWebhook', as(a, { body: { url: 'ftp://example.com', events: ['nope'], secret: 'x' }, expect: 400 }));
  };
  drive.listWebhooks = async () => void (await c.call('listWebhooks', as(a, { expect: 200 })));
  drive.getWebhook = async () => void (await c.call('getWebhook', as(a, { params: { id: webhookId }, expect: 200 })));
  drive.testWebhook = async () => void (await c.call('testWebhook', as(a, { params: { id: webhookId }, expect: 202 })));
  drive.listWebhookDeliveries = async () => void (await c.call('listWebhookDeliveries', as(a, { params: { id: webhookId }, expect: 200 })));

  // ---- games -----------------------------------------------------------------------------
  const blitz = { time_control: 'blitz', initial_time: 300, increment: 0 };
  drive.createGame = async () => {
    // A challenge (pending), then a seek answered by a second seeker: the 201's other shape, the game.
    const res = await c.call('createGame', as(a, { body: { type: 'challenge', opponent_id: b.id, ...blitz, color: 'white' }, expect: 201 }));
    gameId = res.body.data.id;
    const pool = { time_control: 'blitz', initial_time: 200 + Math.floor(Math.random() * 60), increment: 1 };
    const [e, f] = [await signUp(), await signUp()];
    const seek = await c.call('createGame', as(e, { body: { type: 'matchmaking', ...pool }, expect: 201 }));
    assert.equal(seek.body.data.status, 'pending');
    // A seek listed has an empty seat: null where the Player goes.
    const listed = await c.call('listGames', as(e, { query: { status: 'pending' }, expect: 200 }));
    assert.ok(listed.body.data.some((g: { white_player: unknown; black_player: unknown }) => g.white_player === null || g.black_player === null));
    const paired = await c.call('createGame', as(f, { body: { type: 'matchmaking', ...pool }, expect: 201 }));
    assert.equal(paired.body.data.status, 'active', 'the second seeker is paired at once');
    await c.call('abortGame', as(f, { params: { id: paired.body.data.id }, expect: 200 }));
    // The computer (DESIGN 2.14): active at once, its player a BOT; a level out of range is a 400.
    const h = await signUp();
    const computer = await c.call('createGame', as(h, { body: { type: 'computer', level: 1, ...blitz, color: 'white' }, expect: 201 }));
    assert.equal(computer.body.data.black_player.title, 'BOT');
    await c.call('abortGame', as(h, { params: { id: computer.body.data.id }, expect: 200 }));
    await c.call('createGame', as(h, { body: { type: 'computer', level: 9, ...blitz }, expect: 400 }));
    await c.call('createGame', as(a, { body: { type: 'challenge', opponent_id: randomUUID(), ...blitz }, expect: 404 }));
    // A replayed POST: the stored answer, with Idempotent-Replayed.
    const key = randomUUID();
    const first = await c.call('createGame', as(d, { body: { type: 'challenge', opponent_id: b.id, ...blitz }, headers: { 'Idempotency-Key': key }, expect: 201 }));
    const again = await c.call('createGame', as(d, { body: { type: 'challenge', opponent_id: b.id, ...blitz }, headers: { 'Idempotency-Key': key }, expect: 201 }));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    await c.call('cancelChallenge', as(d, { params: { id: first.body.data.id }, expect: 200 }));
    await c.call('createGame', as(d, { body: { type: 'matchmaking', ...blitz }, headers: { 'Idempotency-Key': key }, expect: 409 }));
  };
  drive.listGames = async () => {
    await c.call('listGames', as(a, { query: { status: 'pending' }, expect: 200 }));
    await c.call('listGames', as(a, { query: { sort: 'sideways' }, expect: 400 }));
  };
  // Challenges count against a limit of 5 a minute per user: each of these has a challenger of its own.
  drive.declineChallenge = async () => {
    const g = await signUp();
    const id = (await c.call('createGame', as(g, { body: { type: 'challenge', opponent_id: d.id, ...blitz }, expect: 201 }))).body.data.id;
    await c.call('declineChallenge', as(g, { params: { id }, expect: 403 }));
    await c.call('declineChallenge', as(d, { params: { id }, expect: 200 }));
    await c.call('declineChallenge', as(d, { params: { id }, expect: 409 }));
  };
  drive.cancelChallenge = async () => {
    const g = await signUp();
    const id = (await c.call('createGame', as(g, { body: { type: 'challenge', opponent_id: d.id, ...blitz }, expect: 201 }))).body.data.id;
    await c.call('cancelChallenge', as(g, { params: { id }, expect: 200 }));
  };
  drive.acceptChallenge = async () => {
    await c.call('acceptChallenge', as(b, { params: { id: gameId }, expect: 200 }));
  };
  drive.getGame = async () => void (await c.call('getGame', as(a, { params: { id: gameId }, expect: 200 })));
  drive.makeMove = async () => {
    await c.call('makeMove', as(a, { params: { id: gameId }, body: { from: 'e2', to: 'e4' }, expect: 200 }));
    await c.call('makeMove', as(a, { params: { id: gameId }, body: { from: 'd2', to: 'd4' }, expect: 403 }));
    await c.call('makeMove', as(b, { params: { id: gameId }, body: { from: 'e7', to: 'e4' }, expect: 400 }));
    await c.call('makeMove', as(b, { params: { id: gameId }, body: { from: 'e7', to: 'e5' }, expect: 200 }));
    await c.call('makeMove', as(a, { params: { id: gameId }, body: { from: 'g1', to: 'f3' }, expect: 200 }));
  };
  drive.getGamePgn = async () => void (await c.call('getGamePgn', as(a, { params: { id: gameId }, expect: 200 })));
  let takebackId = '';
  drive.offerTakeback = async () => {
    takebackId = (await c.call('offerTakeback', as(a, { params: { id: gameId }, expect: 200 }))).body.data.takeback.id;
    await c.call('offerTakeback', as(a, { params: { id: gameId }, expect: 409 }));
  };
  drive.answerTakeback = async () => {
    await c.call('answerTakeback', as(b, { params: { id: gameId, takeback_id: takebackId }, body: { accept: true }, expect: 200 }));
    await c.call('answerTakeback', as(b, { params: { id: gameId, takeback_id: takebackId }, body: { accept: true }, expect: 409 }));
    await c.call('makeMove', as(a, { params: { id: gameId }, body: { from: 'g1', to: 'f3' }, expect: 200 }));
  };
  drive.offerDraw = async () => {
    await c.call('offerDraw', as(a, { params: { id: gameId }, expect: 200 }));
    await c.call('offerDraw', as(a, { params: { id: gameId }, expect: 409 }));
  };
  drive.answerDraw = async () => {
    const offer = (await c.call('getGame', as(b, { params: { id: gameId }, expect: 200 }))).body.data.draw_offer;
    await c.call('answerDraw', as(a, { params: { id: gameId, offer_id: offer.id }, body: { accept: true }, expect: 403 }));
    await c.call('answerDraw', as(b, { params: { id: gameId, offer_id: offer.id }, body: { accept: false }, expect: 200 }));
  };
  drive.sendChat = async () => {
    await c.call('sendChat', as(a, { params: { id: gameId }, body: { text: 'good luck', room: 'player' }, expect: 201 }));
    await c.call('sendChat', as(a, { params: { id: gameId }, body: { text: '', room: 'player' }, expect: 400 }));
  };
  drive.listChat = async () => void (await c.call('listChat', as(b, { params: { id: gameId }, query: { room: 'player' }, expect: 200 })));
  drive.muteChat = async () => void (await c.call('muteChat', as(b, { params: { id: gameId }, expect: 200 })));
  drive.unmuteChat = async () => void (await c.call('unmuteChat', as(b, { params: { id: gameId }, expect: 200 })));
  drive.claimGame = async () => void (await c.call('claimGame', as(a, { params: { id: gameId }, body: { result: 'win' }, expect: 409 })));
  drive.getAnalysis = async () => {
    await c.call('getAnalysis', as(a, { params: { id: gameId }, expect: 409 }));
    await c.call('getAnalysis', { params: { id: gameId }, ip: newIp(), expect: 409 });
  };
  drive.resign = async () => {
    await c.call('resign', as(b, { params: { id: gameId }, headers: { 'Idempotency-Key': randomUUID() }, expect: 200 }));
    await c.call('resign', as(b, { params: { id: gameId }, expect: 409 }));
    finishedId = gameId;
    // No analysis workers in tests: the analysis is queued, 202 with Retry-After.
    await c.call('getAnalysis', as(a, { params: { id: finishedId }, expect: 202 }));
  };
  drive.requestRematch = async () => {
    await c.call('requestRematch', as(a, { params: { id: finishedId }, expect: 201 }));
    await c.call('requestRematch', as(a, { params: { id: finishedId }, expect: 200 }));
    const rematch = (await c.call('requestRematch', as(b, { params: { id: finishedId }, expect: 200 }))).body.data;
    assert.equal(rematch.status, 'active', "B's rematch accepts A's");
    await c.call('abortGame', as(rematch.white_player.id === a.id ? a : b, { params: { id: rematch.id }, expect: 200 }));
  };
  drive.abortGame = async () => {
    const g = await signUp();
    const id = (await c.call('createGame', as(g, { body: { type: 'challenge', opponent_id: d.id, ...blitz }, expect: 201 }))).body.data.id;
    await c.call('acceptChallenge', as(d, { params: { id }, expect: 200 }));
    await c.call('abortGame', as(d, { params: { id }, expect: 200 }));
    await c.call('abortGame', as(d, { params: { id }, expect: 409 }));
  };

  // ---- friends and clubs -----------------------------------------------------------------
  drive.requestFriend = async () => {
    await c.call('requestFriend', as(a, { params: { user_id: b.id }, expect: 201 }));
    await c.call('requestFriend', as(a, { params: { user_id: b.id }, expect: 200 }));
    await c.call('requestFriend', as(b, { params: { user_id: a.id }, expect: 200 }));
  };
  drive.listFriends = async () => {
    await c.call('listFriends', as(a, { expect: 200 }));
    await c.call('listFriends', as(a, { query: { status: 'enemies' }, expect: 400 }));
  };
  drive.removeFriend = async () => void (await c.call('removeFriend', as(a, { params: { user_id: b.id }, expect: 204 })));
  let clubId = '';
  drive.createClub = async () => {
    clubId = (await c.call('createClub', as(a, { body: { name: `Club ${randomBytes(3).toString('hex').replace(/[a-f]/g, '')}x`, open: false }, expect: 201 }))).body.data.id;
    await c.call('createClub', as(a, { body: { name: 'x' }, expect: 400 }));
  };
  drive.listClubs = async () => void (await c.call('listClubs', { ip: newIp(), expect: 200 }));
  drive.getClub = async () => void (await c.call('getClub', { params: { id: clubId }, ip: newIp(), expect: 200 }));
  drive.listClubMembers = async () => void (await c.call('listClubMembers', { params: { id: clubId }, ip: newIp(), expect: 200 }));
  drive.inviteToClub = async () => {
    await c.call('joinClub', as(b, { params: { id: clubId }, expect: 403 }));
    await c.call('inviteToClub', as(a, { params: { id: clubId }, body: { user_id: b.id }, expect: 201 }));
    await c.call('inviteToClub', as(a, { params: { id: clubId }, body: { user_id: b.id }, expect: 200 }));
    await c.call('inviteToClub', as(b, { params: { id: clubId }, body: { user_id: d.id }, expect: 403 }));
  };
  drive.joinClub = async () => void (await c.call('joinClub', as(b, { params: { id: clubId }, expect: 200 })));
  drive.leaveClub = async () => {
    await c.call('leaveClub', as(b, { params: { id: clubId }, expect: 204 }));
    await c.call('leaveClub', as(b, { params: { id: clubId }, expect: 404 }));
  };
  drive.deleteClub = async () => {
    await c.call('deleteClub', as(b, { params: { id: clubId }, expect: 403 }));
    await c.call('deleteClub', as(a, { params: { id: clubId }, expect: 204 }));
  };

  // ---- puzzles and tournaments -----------------------------------------------------------
  let puzzleId = '';
  let solution: string[] = [];
  drive.listPuzzles = async () => {
    ({ id: puzzleId, solution } = await importPuzzle());
    await c.call('listPuzzles', { ip: newIp(), expect: 200 });
    await c.call('listPuzzles', { query: { min_rating: 'high' }, ip: newIp(), expect: 400 });
  };
  drive.getDailyPuzzle = async () => void (await c.call('getDailyPuzzle', { ip: newIp() }));
  drive.getNextPuzzle = async () => void (await c.call('getNextPuzzle', as(a, { expect: 200 })));
  drive.getPuzzle = async () => {
    await c.call('getPuzzle', { params: { id: puzzleId }, ip: newIp(), expect: 200 });
    await c.call('getPuzzle', { params: { id: 'zzzzz' }, ip: newIp(), expect: 404 });
  };
  drive.attemptPuzzle = async () => {
    await c.call('attemptPuzzle', as(a, { params: { id: puzzleId }, body: { moves: solution }, expect: 200 }));
    await c.call('attemptPuzzle', as(a, { params: { id: puzzleId }, body: { moves: ['nonsense'] }, expect: 400 }));
  };
  drive.stepPuzzle = async () => {
    // 002X3 of the bundled sample: a mate in 2, so its first move goes on with a reply.
    await c.call('stepPuzzle', as(b, { params: { id: '002X3' }, body: { moves: ['g2a8'] }, expect: 200 }));
    await c.call('stepPuzzle', as(b, { params: { id: puzzleId }, body: { moves: solution }, expect: 200 }));
    await c.call('stepPuzzle', as(b, { params: { id: puzzleId }, body: { moves: ['nonsense'] }, expect: 400 }));
    await c.call('stepPuzzle', as(b, { params: { id: 'zzzzz' }, body: { moves: ['g2a8'] }, expect: 404 }));
  };
  let tournamentId = '';
  drive.createTournament = async () => {
    const starts = new Date(Date.now() + 10 * 60_000).toISOString();
    const body = { name: `Arena no${Date.now() % 100000}`, time_control: 'blitz', initial_time: 180, increment: 2, starts_at: starts, duration_minutes: 30 };
    tournamentId = (await c.call('createTournament', as(a, { body, expect: 201 }))).body.data.id;
    await c.call('createTournament', as(a, { body: { ...body, time_control: 'bullet' }, expect: 400 }));
  };
  drive.listTournaments = async () => void (await c.call('listTournaments', { query: { status: 'upcoming' }, ip: newIp(), expect: 200 }));
  drive.getTournament = async () => void (await c.call('getTournament', { params: { id: tournamentId }, ip: newIp(), expect: 200 }));
  drive.getTournamentStandings = async () => void (await c.call('getTournamentStandings', { params: { id: tournamentId }, ip: newIp(), expect: 200 }));
  drive.joinTournament = async () => {
    await c.call('joinTournament', as(b, { params: { id: tournamentId }, expect: 200 }));
  };
  drive.withdrawFromTournament = async () => void (await c.call('withdrawFromTournament', as(b, { params: { id: tournamentId }, expect: 200 })));

  // ---- streams over HTTP (NDJSON) and rooms ------------------------------------------------
  const ndjson = { Accept: 'application/x-ndjson' };
  drive.streamGame = async () => {
    const res = await c.call('streamGame', { params: { id: finishedId }, headers: ndjson, stream: true, ip: newIp(), expect: 200 });
    assert.equal(JSON.parse(res.text.split('\n')[0]).type, 'state');
    await c.call('streamGame', { params: { id: finishedId }, query: { since: 'soon' }, headers: ndjson, ip: newIp(), expect: 400 });
    await c.call('streamGame', { params: { id: finishedId }, token: 'not.a.token', headers: ndjson, ip: newIp(), expect: 401 });
    await c.call('streamGame', { params: { id: randomUUID() }, headers: ndjson, ip: newIp(), expect: 404 });
    await c.call('streamGame', { params: { id: finishedId }, ip: newIp(), expect: 404 });
  };
  drive.exportUserGames = async () => {
    await c.call('exportUserGames', { params: { id: a.id }, ip: newIp(), expect: 200 });
    await c.call('exportUserGames', { params: { id: a.id }, query: { max: '1', clocks: 'false' }, headers: ndjson, ip: newIp(), expect: 200 });
    await c.call('exportUserGames', { params: { id: a.id }, query: { max: '0' }, ip: newIp(), expect: 400 });
    await c.call('exportUserGames', { params: { id: randomUUID() }, ip: newIp(), expect: 404 });
  };
  drive.streamEvents = async () => {
    await c.call('streamEvents', as(a, { stream: true, expect: 200 }));
    await c.call('streamEvents', { ip: newIp(), expect: 401 });
  };

  // ---- watching (DESIGN 2.14): public, no token --------------------------------------------
  drive.listLiveGames = async () => {
    await c.call('listLiveGames', { query: { limit: '5' }, ip: newIp(), expect: 200 });
    await c.call('listLiveGames', { query: { limit: '0' }, ip: newIp(), expect: 400 });
  };
  drive.getTv = async () => void (await c.call('getTv', { ip: newIp(), expect: 200 }));
  drive.streamTv = async () => {
    const res = await c.call('streamTv', { stream: true, ip: newIp(), expect: 200 });
    assert.equal(JSON.parse(res.text.split('\n')[0]).type, 'featured');
  };

  drive.matchmake = async () => {
    await c.call('matchmake', { params: { method: 'joinOrCreate', room: 'lobby' }, body: {}, ip: newIp(), expect: 200 });
    await c.call('matchmake', { params: { method: 'joinOrCreate', room: 'nowhere' }, body: {}, ip: newIp(), expect: 404 });
    await c.call('matchmake', { params: { method: 'joinById', room: finishedId }, body: { token: 'not.a.token' }, ip: newIp() });
  };

  drive.deleteWebhook = async () => {
    await c.call('deleteWebhook', as(a, { params: { id: webhookId }, expect: 204 }));
    await c.call('deleteWebhook', as(a, { params: { id: webhookId }, expect: 404 }));
  };

  it('names every operation of the document in the drive list, and nothing else', () => {
    assert.deepEqual([...c.operations.keys()].sort(), Object.keys(drive).sort());
  });

  it('answers every operation as the document says: status, headers and body', async () => {
    for (const [id, run] of Object.entries(drive)) {
      try {
        await run();
      } catch (error) {
        (error as Error).message = `driving ${id}: ${(error as Error).message}`;
        throw error;
      }
    }
    assert.deepEqual(c.undriven(), [], 'operations no call reached');
  });

  it('answers every refusal any operation shares as documented: no token, an unknown id, a body over 64 KB', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
    // A fresh caller every 20 operations: the write class allows 30 a minute per user.
    let caller = await signUp();
    let n = 0;
    for (const { id, method, path, op } of c.operations.values()) {
      if (++n % 20 === 0) caller = await signUp();
      const params = Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], m[1] === 'method' ? 'joinById' : randomUUID()]));
      const needsToken = (op.security ?? []).length > 0 && !(op.security as object[]).some((s) => Object.keys(s).length === 0);
      if (needsToken) {
        const res = await c.call(id, { params, ip: newIp(), body: op.requestBody ? {} : undefined });
        assert.equal(res.status, 401, `${id} without a token`);
      }
      if (Object.keys(params).length > 0) await c.call(id, { params, token: caller.token, ip: newIp(), body: op.requestBody ? {} : undefined });
      if (['post', 'put', 'patch'].includes(method)) {
        const res = await c.call(id, { params, rawBody: big, token: caller.token, ip: newIp() });
        assert.equal(res.status, 413, `${id} with 70 KB`);
      }
    }
  });

  it('refuses an answer the document does not describe: a wrong body, an undocumented status or header', async () => {
    const res = await api('GET', c.url('getGame', { id: gameId }), { token: a.token, ip: a.ip });
    assert.deepEqual(c.problems('getGame', res), []);
    const wrong = { ...res, body: { ...res.body, data: { ...res.body.data, status: 42, fen: undefined } } };
    assert.ok(c.problems('getGame', wrong).some((p) => p.includes('/data/status')), 'a wrong field');
    assert.ok(c.problems('getGame', { ...res, body: { success: true } }).some((p) => p.includes("'data'")), 'data is required');
    assert.match(c.problems('getGame', { ...res, status: 418 })[0], /status 418 is not documented/);
    const headers = new Headers(res.headers);
    headers.set('Location', '/v1/games/x');
    assert.deepEqual(c.problems('getGame', { ...res, headers }), ['header Location is sent but not documented']);
  });

  it('sends webhook payloads as the document\'s webhooks section describes them', async () => {
    const received = await hooks.waitFor(6);
    const seen = new Set<string>();
    for (const r of received) {
      const type = r.json?.type as string;
      const hook = c.doc.webhooks?.[type]?.post;
      assert.ok(hook, `webhook ${type} is not in the document`);
      const schema = hook.requestBody.content['application/json'].schema;
      const problems = c.validate(`webhook ${type}`, schema, r.json);
      assert.deepEqual(problems, [], `${type}: ${r.body.slice(0, 300)}`);
      seen.add(type);
    }
    for (const type of ['webhook.test', 'game.started', 'game.move', 'game.finished', 'friend.request', 'friend.accepted', 'club.invite']) assert.ok(seen.has(type), `no ${type} delivery`);
  });
});

/** One new puzzle (a copy of a bundled one under a fresh id), imported as an operator would. */
async function importPuzzle(): Promise<{ id: string; solution: string[] }> {
  const lines = readFileSync(BUNDLED_PUZZLES, 'utf8').trimEnd().split('\n');
  const cols = lines[1].split(',');
  cols[0] = `oa${randomBytes(3).toString('hex').slice(0, 3)}`;
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-puzzles-')), 'p.csv');
  writeFileSync(file, [lines[0], cols.join(',')].join('\n'));
  await importPuzzleFile((await testService()).service.ctx.pool, file, {});
  // Lichess's Moves: the opponent's move that sets the puzzle, then the solution.
  return { id: cols[0], solution: cols[2].split(' ').slice(1) };
}
