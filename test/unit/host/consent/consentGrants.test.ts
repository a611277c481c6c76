import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkScope, globMatches } from '../../../../src/host/consent/consentGrants.js';
import { parseScope } from '../../../../src/host/consent/consentAnswers.js';
import type { ConsentRequest } from '../../../../src/host/consent/consentTypes.js';

const request = (over: Partial<ConsentRequest> = {}): ConsentRequest => ({
  id: 'r1',
  createdAt: '2026-12-01T10:00:00Z',
  expiresAt: '2026-12-01T10:02:00Z',
  method: 'tools/call',
  server: { id: 'fs', identity: 'stdio:sha256:x' },
  tool: 'write_file',
  arguments: { path: '/tmp/notes/a.txt', content: 'hi', mode: 420 },
  reasons: ['destructive'],
  session: 's1',
  binding: { serverIdentity: 'stdio:sha256:x', tool: 'write_file', definitionDigest: 'sha256:d', argumentsDigest: 'sha256:a' },
  ...over,
});
const NOW = Date.parse('2026-12-01T10:00:00Z');

describe('argument patterns (globs)', () => {
  it('* matches any run (slashes included), ? one character, the rest literally, over the whole value', () => {
    assert.equal(globMatches('/tmp/*', '/tmp/notes/a.txt'), true);
    assert.equal(globMatches('/tmp/?.txt', '/tmp/a.txt'), true);
    assert.equal(globMatches('*@example.com', 'bob@example.com'), true);
    assert.equal(globMatches('', ''), true);
  });

  it('a value that only starts or ends like the pattern is not matched (path traversal, suffix tricks)', () => {
    assert.equal(globMatches('/tmp/*', '/etc/passwd'), false);
    assert.equal(globMatches('*@example.com', 'bob@example.com.evil.example'), false);
    assert.equal(globMatches('/tmp/?.txt', '/tmp/ab.txt'), false);
    assert.equal(globMatches('report', 'report2'), false);
    assert.equal(globMatches('.*', 'anything'), false, 'regex syntax is literal');
  });
});

describe('approval scopes', () => {
  it('a valid pattern scope passes', () => {
    assert.doesNotThrow(() => checkScope({ match: 'pattern', duration: 'session', patterns: { path: '/tmp/notes/*' } }, request(), NOW));
  });

  it('a pattern on a non-string argument, on a missing argument, or not matching the approved call is refused', () => {
    assert.throws(() => checkScope({ match: 'pattern', duration: 'session', patterns: { mode: '*' } }, request(), NOW), /not a string/);
    assert.throws(() => checkScope({ match: 'pattern', duration: 'session', patterns: { other: '*' } }, request(), NOW), /no argument "other"/);
    assert.throws(() => checkScope({ match: 'pattern', duration: 'session', patterns: { path: '/var/*' } }, request(), NOW), /does not match the call being approved/);
    assert.throws(() => checkScope({ match: 'pattern', duration: 'session' }, request(), NOW), /at least one argument pattern/);
  });

  it('session scope on a stateless request, until without expiry, expiry in the past: refused', () => {
    const { session: _s, ...stateless } = request();
    assert.throws(() => checkScope({ match: 'tool', duration: 'session' }, stateless, NOW), /has no session/);
    assert.throws(() => checkScope({ match: 'tool', duration: 'until' }, request(), NOW), /needs expiresAt/);
    assert.throws(() => checkScope({ match: 'tool', duration: 'until', expiresAt: '2026-12-01T09:59:59Z' }, request(), NOW), /already past/);
  });

  it('parseScope: defaults to this call once; unknown members and wrong types are refused', () => {
    assert.deepEqual(parseScope(undefined), { match: 'call', duration: 'once' });
    assert.deepEqual(parseScope({ match: 'tool', duration: 'session' }), { match: 'tool', duration: 'session' });
    assert.throws(() => parseScope({ match: 'everything' }), /scope.match/);
    assert.throws(() => parseScope({ match: 'tool', principal: 'any' }), /unknown member "principal"/);
    assert.throws(() => parseScope({ match: 'pattern', patterns: { a: 1 } }), /must be a string/);
  });
});
