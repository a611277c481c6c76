import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  extractMcpHeaders,
  headerValueMatches,
  isHeaderSafe,
  valueAtPath,
} from '../../../src/protocol/xMcpHeader.js';

describe('protocol/xMcpHeader: schema rules', () => {
  it('collects annotated string/integer/boolean properties along a pure properties chain', () => {
    const scan = extractMcpHeaders({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        opts: { type: 'object', properties: { dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
        plain: { type: 'string' },
      },
    });
    assert.deepEqual(scan.problems, []);
    assert.deepEqual(scan.headers, [
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Limit', path: ['limit'], type: 'integer' },
      { name: 'Dry-Run', path: ['opts', 'dryRun'], type: 'boolean' },
    ]);
  });

  it('rejects duplicate names case-insensitively', () => {
    const scan = extractMcpHeaders({
      type: 'object',
      properties: { a: { type: 'string', 'x-mcp-header': 'Tenant' }, b: { type: 'string', 'x-mcp-header': 'tenant' } },
    });
    assert.equal(scan.headers.length, 1);
    assert.match(scan.problems[0] ?? '', /duplicates/);
  });

  it('rejects names that are not RFC 9110 tokens (empty, spaces, colon, CR/LF, non-ASCII)', () => {
    for (const bad of ['', 'Has Space', 'a:b', 'x\r\nInjected: 1', 'Région', 7]) {
      const scan = extractMcpHeaders({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': bad } } });
      assert.equal(scan.headers.length, 0, String(bad));
      assert.equal(scan.problems.length, 1, String(bad));
    }
  });

  it('rejects number, object, array and untyped properties', () => {
    for (const type of ['number', 'object', 'array', undefined, ['string', 'null']]) {
      const scan = extractMcpHeaders({ type: 'object', properties: { a: { type, 'x-mcp-header': 'A' } } });
      assert.equal(scan.headers.length, 0);
      assert.match(scan.problems[0] ?? '', /only allowed on string, integer or boolean/);
    }
  });

  it('rejects annotations not statically reachable (items, anyOf, if/then, $defs, $ref)', () => {
    const scan = extractMcpHeaders({
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        alt: { anyOf: [{ type: 'string', 'x-mcp-header': 'Alt' }] },
        cond: { if: { type: 'string' }, then: { type: 'string', 'x-mcp-header': 'Then' } },
        ref: { $ref: '#/$defs/r', 'x-mcp-header': 'Ref' },
      },
      $defs: { r: { type: 'string', 'x-mcp-header': 'Def' } },
    });
    assert.deepEqual(scan.headers, []);
    assert.equal(scan.problems.length, 5);
    assert.ok(scan.problems.some((p) => p.startsWith('list.items')));
    assert.ok(scan.problems.some((p) => p.includes('$ref')));
  });

  it('rejects a non-object schema and an annotation on the root', () => {
    assert.deepEqual(extractMcpHeaders('nope').problems, ['inputSchema must be an object']);
    assert.equal(extractMcpHeaders({ type: 'object', 'x-mcp-header': 'Root' }).problems.length, 1);
  });
});

describe('protocol/xMcpHeader: value encoding', () => {
  it('passes header-safe strings, integers and booleans through', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('a b\tc'), 'a b\tc');
    assert.equal(encodeHeaderValue(42), '42');
    assert.equal(encodeHeaderValue(-7), '-7');
    assert.equal(encodeHeaderValue(true), 'true');
    assert.equal(encodeHeaderValue(false), 'false');
    assert.equal(encodeHeaderValue(null), undefined);
    assert.equal(encodeHeaderValue(undefined), undefined);
  });

  it('base64-wraps non-ASCII, control characters, padding and sentinel look-alikes', () => {
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  it('refuses integers outside ±(2^53-1) and fractions', () => {
    assert.throws(() => encodeHeaderValue(2 ** 53), RangeError);
    assert.throws(() => encodeHeaderValue(1.5), RangeError);
  });

  it('round-trips arbitrary strings', () => {
    for (const s of ['', 'plain', ' x', 'x ', 'tab\tinside', 'emoji 🚀', 'crlf\r\nX: y', '=?base64?abc?=', 'ümlaut', '\u0000']) {
      const encoded = encodeHeaderValue(s);
      assert.ok(encoded !== undefined && isHeaderSafe(encoded), JSON.stringify(s));
      assert.equal(decodeHeaderValue(encoded), s);
    }
  });

  it('decodes only exact lowercase markers and rejects malformed payloads', () => {
    assert.equal(decodeHeaderValue('=?BASE64?SGk=?='), '=?BASE64?SGk=?=');
    assert.equal(decodeHeaderValue('=?base64?!!!?='), undefined);
    assert.equal(decodeHeaderValue('=?base64?/w==?='), undefined, 'invalid UTF-8');
    assert.equal(decodeHeaderValue('bad\u0001'), undefined);
  });

  it('compares header and body values after decoding; integers numerically', () => {
    assert.equal(headerValueMatches('42', 42, 'integer'), true);
    assert.equal(headerValueMatches('42.0', 42, 'integer'), true);
    assert.equal(headerValueMatches('43', 42, 'integer'), false);
    assert.equal(headerValueMatches('true', true, 'boolean'), true);
    assert.equal(headerValueMatches('True', true, 'boolean'), false);
    assert.equal(headerValueMatches('=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界', 'string'), true);
    assert.equal(headerValueMatches('x', null, 'string'), false);
    assert.equal(valueAtPath({ opts: { dryRun: true } }, ['opts', 'dryRun']), true);
    assert.equal(valueAtPath({ opts: 1 }, ['opts', 'dryRun']), undefined);
  });
});
