import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findChallenge, formatChallenge, parseWwwAuthenticate } from '../../../src/auth/wwwAuthenticate.js';

describe('WWW-Authenticate', () => {
  it('parses a Bearer challenge with quoted values', () => {
    const [c] = parseWwwAuthenticate('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"');
    assert.equal(c?.scheme, 'bearer');
    assert.deepEqual(c?.params, { resource_metadata: 'https://mcp.example.com/.well-known/oauth-protected-resource', scope: 'files:read files:write' });
  });

  it('parses several challenges, token68, escapes, token values and odd whitespace', () => {
    const list = parseWwwAuthenticate('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple" ,  DPoP algs="ES256", Negotiate abc123==');
    assert.deepEqual(
      list.map((c) => c.scheme),
      ['newauth', 'basic', 'dpop', 'negotiate'],
    );
    assert.equal(list[0]?.params['title'], 'Login to "apps"');
    assert.equal(list[0]?.params['type'], '1');
    assert.equal(list[3]?.token68, 'abc123==');
    assert.equal(findChallenge(list, 'DPOP')?.params['algs'], 'ES256');
  });

  it('parses a bare scheme and multi-line (folded) challenges', () => {
    assert.deepEqual(parseWwwAuthenticate('Bearer'), [{ scheme: 'bearer', params: {} }]);
    const [c] = parseWwwAuthenticate('Bearer error="insufficient_scope",\n                         scope="files:write"');
    assert.equal(c?.params['scope'], 'files:write');
  });

  it('round-trips formatChallenge', () => {
    const value = formatChallenge('Bearer', { resource_metadata: 'https://x/y', scope: 'a b', error: 'invalid_token', error_description: 'say "hi" \\ bye' });
    assert.deepEqual(parseWwwAuthenticate(value)[0]?.params, { resource_metadata: 'https://x/y', scope: 'a b', error: 'invalid_token', error_description: 'say "hi" \\ bye' });
  });

  it('parameter smuggling: a challenge repeating resource_metadata is dropped', () => {
    const list = parseWwwAuthenticate('Bearer resource_metadata="https://good/prm", resource_metadata="https://evil/prm"');
    assert.equal(findChallenge(list, 'Bearer'), undefined);
  });

  it('header injection: CR/LF in a challenge value is refused', () => {
    assert.throws(() => formatChallenge('Bearer', { error_description: 'x\r\nSet-Cookie: a=b' }));
  });

  it('unterminated quoted strings do not yield a value', () => {
    const [c] = parseWwwAuthenticate('Bearer scope="a b');
    assert.equal(c?.params['scope'], undefined);
  });
});
