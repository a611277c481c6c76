/**
 * Round-trip vectors under `test/corpus/<revision>/<TypeName>/<case>.json`, written by us.
 *
 * Vector format: `{ method, kind: "params" | "result", options?, value }`. Valid vectors are
 * decoded through the codec, re-encoded, serialized and compared deep-equal to the input.
 * Vectors under `invalid/` carry `expect: { code, path? }`: decoding must fail with that
 * code (a JSON-RPC code for params, `ERR_MCP_INVALID_RESPONSE` for results) and name `path`.
 * A `params` vector whose value is `null` stands for absent params.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeRequestParams, decodeResult, encodeResult } from '../../../src/protocol/codec.js';
import { isSupportedRevision, supportedRevisions, type ProtocolRevision } from '../../../src/protocol/revisions.js';

interface Vector {
  method: string;
  kind: 'params' | 'result';
  options?: { extensions?: string[]; tasksExtension?: boolean; strict?: boolean };
  expect?: { code: number | string; path?: string };
  value: unknown;
}

const corpusRoot = new URL('../../corpus/', import.meta.url).pathname;

function load(revision: string): Array<{ name: string; vector: Vector }> {
  const out: Array<{ name: string; vector: Vector }> = [];
  for (const type of readdirSync(join(corpusRoot, revision)).sort()) {
    for (const file of readdirSync(join(corpusRoot, revision, type)).sort()) {
      if (!file.endsWith('.json')) continue;
      out.push({ name: `${type}/${file}`, vector: JSON.parse(readFileSync(join(corpusRoot, revision, type, file), 'utf8')) as Vector });
    }
  }
  return out;
}

function decode(revision: ProtocolRevision, v: Vector) {
  const extensions = new Set(v.options?.extensions ?? []);
  if (v.kind === 'params') {
    const r = decodeRequestParams(revision, v.method, v.value === null ? undefined : v.value, { extensions });
    return r.ok ? { ok: true as const, wire: r.value } : { ok: false as const, code: r.error.code as number | string, message: r.error.message, data: r.error.data };
  }
  const r = decodeResult(revision, v.method, v.value, { tasksExtension: v.options?.tasksExtension === true, strict: v.options?.strict === true });
  return r.ok
    ? { ok: true as const, wire: encodeResult(revision, v.method, r.value) }
    : { ok: false as const, code: r.error.code as number | string, message: r.error.message, data: undefined };
}

describe('protocol corpus', () => {
  const dirs = readdirSync(corpusRoot).filter((d) => !d.startsWith('.'));
  it('has a folder only for supported revisions, and at least 12 valid and 5 invalid vectors in each', () => {
    assert.deepEqual([...dirs].sort(), [...supportedRevisions]);
    for (const rev of dirs) {
      const all = load(rev);
      assert.ok(all.filter((x) => !x.name.startsWith('invalid/')).length >= 12, rev);
      assert.ok(all.filter((x) => x.name.startsWith('invalid/')).length >= 5, rev);
    }
  });

  for (const revision of dirs) {
    if (!isSupportedRevision(revision)) continue;
    describe(revision, () => {
      for (const { name, vector } of load(revision)) {
        if (name.startsWith('invalid/')) {
          it(`rejects ${name}`, () => {
            const expect = vector.expect;
            assert.ok(expect, 'invalid vector needs "expect"');
            const r = decode(revision, vector);
            assert.equal(r.ok, false, 'expected decoding to fail');
            if (r.ok) return;
            assert.equal(r.code, expect.code, r.message);
            if (expect.path !== undefined) assert.ok(r.message.includes(expect.path), `message "${r.message}" should name ${expect.path}`);
          });
        } else {
          it(`round-trips ${name}`, () => {
            const r = decode(revision, vector);
            assert.ok(r.ok, r.ok ? '' : `${r.code} ${r.message}`);
            assert.deepEqual(JSON.parse(JSON.stringify(r.wire)), vector.value === null ? {} : vector.value);
          });
        }
      }
    });
  }
});
