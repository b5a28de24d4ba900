import assert from 'node:assert/strict';
import { api } from '../helpers/http.ts';
import { expectNo500 } from '../helpers/malformed.ts';

/** Every body-taking authentication endpoint and its fields. */
const ENDPOINTS: Array<[string, string[]]> = [
  ['/v1/auth/signup', ['email', 'password', 'username', 'full_name']],
  ['/v1/auth/login', ['email', 'password']],
  ['/v1/auth/refresh', ['refresh_token']],
  ['/v1/auth/logout', []],
  ['/v1/auth/password/reset', ['email']],
  ['/v1/auth/password/update', ['token', 'password']],
  ['/v1/auth/verify', ['token']],
  ['/v1/auth/verify/resend', ['email']],
];

describe('authentication endpoints and malformed bodies', function () {
  this.timeout(60_000);
  for (const [path, fields] of ENDPOINTS) {
    it(`POST ${path} answers every malformed body with a 4xx envelope, never 500`, () => expectNo500('POST', path, { fields }));
  }
});

describe('OpenAPI document', () => {
  it('documents every authentication and user endpoint', async () => {
    const res = await api('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths;
    const expected: Array<[string, string]> = [
      ['/auth/signup', 'post'],
      ['/auth/login', 'post'],
      ['/auth/logout', 'post'],
      ['/auth/refresh', 'post'],
      ['/auth/oauth/google', 'get'],
      ['/auth/password/reset', 'post'],
      ['/auth/password/update', 'post'],
      ['/auth/verify', 'post'],
      ['/auth/verify/resend', 'post'],
      ['/users/me', 'get'],
      ['/users/me', 'patch'],
      ['/users/search', 'get'],
      ['/users/{id}', 'get'],
      ['/users/{id}/avatar.svg', 'get'],
    ];
    for (const [path, method] of expected) assert.ok(paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
    const signup = paths['/auth/signup'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(signup.required.sort(), ['email', 'password', 'username']);
  });
});
