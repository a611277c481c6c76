// The entropy detector: random tokens no provider rule names are found; the usual look-alikes
// (UUIDs, hex digests, base64 of ordinary text, long words and identifiers, paths) are not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entropyThreshold, findHighEntropy, isHighEntropyToken, shannonEntropy } from '../../../../src/host/secrets/entropy.js';

/** Deterministic pseudo-random base62 text (a linear congruential generator; no Math.random in tests). */
function randomToken(length: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[Math.floor((x / 2 ** 31) * alphabet.length)];
  }
  return out;
}

describe('secrets/entropy', () => {
  it('Shannon entropy: 0 for one repeated character, log2(n) for n distinct ones', () => {
    assert.equal(shannonEntropy('aaaaaaaa'), 0);
    assert.equal(shannonEntropy('abcdefgh'), 3);
    assert.ok(entropyThreshold(24) < entropyThreshold(64));
  });

  it('an unknown service key (a random 32-character token) is found, also inside text', () => {
    const token = randomToken(32, 7);
    assert.equal(isHighEntropyToken(token), true);
    const text = `export ACME_KEY=${token} # set by the installer`;
    assert.deepEqual(findHighEntropy(text).map((r) => text.slice(r.start, r.end)), [token]);
  });

  it('finds most random tokens of 24 to 64 characters (seeded)', () => {
    let found = 0;
    for (let seed = 1; seed <= 200; seed++) if (isHighEntropyToken(randomToken(24 + (seed % 41), seed))) found++;
    assert.ok(found >= 180, `${found} of 200`);
  });

  const ordinary: readonly [string, string][] = [
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['a SHA-256 hex digest of a file', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a git commit id', 'e8f563d2a1c04b7f9e2d3c4b5a69788776655443'],
    ['base64 of ordinary text', 'VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=='],
    ['a long word', 'Pneumonoultramicroscopicsilicovolcanoconiosis'],
    ['a camel-case identifier', 'getUserAccountSettingsForOrganization2024'],
    ['a game item id', 'TFT5_Item_SunfireCapeRadiant'],
    ['a path', 'usr/local/lib/node_modules/typescript/lib'],
    ['a too short token', randomToken(20, 3)],
    ['a base64 image run longer than any secret', randomToken(600, 5)],
  ];
  for (const [what, text] of ordinary) {
    it(`ignores ${what}`, () => {
      assert.deepEqual(findHighEntropy(`value: ${text}.`), []);
    });
  }
});

describe('secrets/entropy: paths and URIs (each segment judged alone)', () => {
  it('token in a resource URI path with word segments: found (the whole run is a path, so it was skipped before)', () => {
    const token = randomToken(28, 11);
    const uri = `note://shared/docs/q3-plan/${token}`;
    assert.deepEqual(findHighEntropy(uri).map((r) => uri.slice(r.start, r.end)), [token]);
  });

  it('a 20-character token bounded by slashes is found; the same length in free text is not', () => {
    const token = randomToken(20, 42);
    assert.ok(isHighEntropyToken(token, 20));
    const uri = `file:///home/alice/share/${token}/index.md`;
    assert.deepEqual(findHighEntropy(uri).map((r) => uri.slice(r.start, r.end)), [token]);
    assert.deepEqual(findHighEntropy(`value ${token} here`), []);
  });

  const paths: readonly [string, string][] = [
    ['a plain file URI', 'file:///home/alice/projects/switchboard/src/host/secrets/entropy.ts'],
    ['a UUID segment', 'db://orders/550e8400-e29b-41d4-a716-446655440000/items'],
    ['a commit id segment', 'git://repo/commits/e8f563d2a1c04b7f9e2d3c4b5a69788776655443/tree'],
    ['a long identifier segment', 'api://v2/getUserAccountSettingsForOrganization2024/run'],
    ['a tool name', 'github__create_pull_request_review_comment_v2'],
  ];
  for (const [what, text] of paths) {
    it(`keeps ${what}`, () => {
      assert.deepEqual(findHighEntropy(text), []);
    });
  }
});

describe('secrets/entropy: upper-case identifiers', () => {
  it('ignores a constant name with digits (JSON_SCHEMA_2020_12_INPUT)', () => {
    assert.deepEqual(findHighEntropy('const JSON_SCHEMA_2020_12_INPUT = 1;'), []);
  });
});
