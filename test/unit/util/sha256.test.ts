import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { sha256, sha256Hex } from '../../../src/util/sha256.js';

// Vectors: FIPS 180-4 examples (NIST CSRC "Example Algorithms", SHA256.pdf / SHA2_Additional.pdf).
describe('util/sha256', () => {
  it('FIPS 180-4 one-block message "abc"', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('FIPS 180-4 two-block message (448 bits)', () => {
    assert.equal(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('the empty message', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('NIST long message: one million "a"', () => {
    assert.equal(sha256Hex('a'.repeat(1_000_000)), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('NIST additional vector: the single byte 0xbd', () => {
    assert.equal(sha256Hex(Uint8Array.of(0xbd)), '68325720aabd7c82f30f554b313d0570c95accbb7dc4b5aae11204c08ffe732b');
  });

  it('agrees with node:crypto on every length around the block and padding boundaries, and on UTF-8 text', () => {
    for (let n = 0; n <= 130; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      assert.equal(sha256Hex(data), createHash('sha256').update(data).digest('hex'), `length ${n}`);
    }
    const text = 'grüße, 世界 😀';
    assert.equal(sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('returns 32 bytes', () => {
    assert.equal(sha256('x').length, 32);
  });
});
