import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { hmacSha256Hex, sha256, sha256Hex } from '../../../src/util/sha256.js';

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

// Vectors: RFC 4231 section 4 (HMAC-SHA-256).
describe('util/sha256: hmacSha256Hex', () => {
  it('RFC 4231 test case 1 (20-byte key)', () => {
    assert.equal(hmacSha256Hex(new Uint8Array(20).fill(0x0b), 'Hi There'), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7');
  });

  it('RFC 4231 test case 2 (short key "Jefe")', () => {
    assert.equal(hmacSha256Hex('Jefe', 'what do ya want for nothing?'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('RFC 4231 test case 6 (a key longer than the block is hashed first)', () => {
    assert.equal(hmacSha256Hex(new Uint8Array(131).fill(0xaa), 'Test Using Larger Than Block-Size Key - Hash Key First'), '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
  });

  it('matches node:crypto for a key of exactly one block and a long message', () => {
    const key = 'k'.repeat(64);
    const data = 'x'.repeat(1000);
    assert.equal(hmacSha256Hex(key, data), createHmac('sha256', key).update(data).digest('hex'));
  });
});
