import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { hasNoBody } from '../../src/http/body.ts';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('which requests the body parsers skip (hasNoBody)', () => {
  it('skips a request with no Content-Length and no Transfer-Encoding (a GET)', () => {
    assert.equal(hasNoBody(request({})), true);
  });

  it('skips an empty body with no Content-Type (a Lichess command POST)', () => {
    assert.equal(hasNoBody(request({ 'content-length': '0' })), true);
  });

  it('reads an empty body that names a type: JSON reads it as {}, text as an empty string', () => {
    assert.equal(hasNoBody(request({ 'content-length': '0', 'content-type': 'application/json' })), false);
    assert.equal(hasNoBody(request({ 'content-length': '0', 'content-type': 'text/plain' })), false);
  });

  it('reads a body with a length or a chunked one', () => {
    assert.equal(hasNoBody(request({ 'content-length': '12' })), false);
    assert.equal(hasNoBody(request({ 'transfer-encoding': 'chunked' })), false);
  });
});
