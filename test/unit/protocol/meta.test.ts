import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  META_RELATED_TASK,
  META_SUBSCRIPTION_ID,
  TASKS_EXTENSION_ID,
  isReservedMetaKey,
  isValidExtensionId,
  isValidMetaKey,
  validateExtensionId,
  validateMetaKey,
} from '../../../src/protocol/meta.js';

describe('protocol/meta', () => {
  it('MUST-31 a prefix is dot-separated labels ending in "/"', () => {
    assert.equal(isValidMetaKey('com.example/key'), true);
    assert.equal(isValidMetaKey('com..example/key'), false);
    assert.equal(isValidMetaKey('/key'), false);
    assert.equal(isValidMetaKey('.com/key'), false);
    assert.equal(isValidMetaKey('com.example./key'), false);
  });

  it('MUST-32 labels start with a letter, end with a letter or digit, interior letters/digits/hyphens', () => {
    assert.equal(isValidMetaKey('a-1.b2/x'), true);
    assert.equal(isValidMetaKey('1com.example/x'), false);
    assert.equal(isValidMetaKey('com-.example/x'), false);
    assert.equal(isValidMetaKey('com.ex_ample/x'), false);
    assert.equal(isValidMetaKey('com.exa mple/x'), false);
    assert.match(validateMetaKey('1com/x')[0] ?? '', /prefix label "1com"/);
  });

  it('MUST-33 a non-empty name starts and ends alphanumeric, interior [A-Za-z0-9._-]', () => {
    for (const ok of ['progressToken', 'traceparent', 'a', 'a.b_c-d', 'com.example/', 'io.modelcontextprotocol/related-task']) {
      assert.equal(isValidMetaKey(ok), true, ok);
    }
    for (const bad of ['-a', 'a-', '_a', 'a.', 'a b', 'a/b/c!', 'com.example/-x', 'x:y', '']) {
      assert.equal(isValidMetaKey(bad), false, bad);
    }
  });

  it('every key this module defines is valid', () => {
    for (const key of [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_SUBSCRIPTION_ID, META_RELATED_TASK]) {
      assert.deepEqual(validateMetaKey(key), [], key);
      assert.equal(isReservedMetaKey(key), true, key);
    }
  });

  it('reserves prefixes whose second label is modelcontextprotocol or mcp (2025-11-25+ rule)', () => {
    assert.equal(isReservedMetaKey('io.modelcontextprotocol/x'), true);
    assert.equal(isReservedMetaKey('dev.mcp/x'), true);
    assert.equal(isReservedMetaKey('org.modelcontextprotocol.api/x'), true);
    assert.equal(isReservedMetaKey('com.mcp.tools/x'), true);
    assert.equal(isReservedMetaKey('com.example.mcp/x'), false);
    assert.equal(isReservedMetaKey('mcp/x'), false);
    assert.equal(isReservedMetaKey('modelcontextprotocol.io/x'), false);
    assert.equal(isReservedMetaKey('progressToken'), false);
  });

  it('applies the older 2025-06-18 reservation rule when asked', () => {
    assert.equal(isReservedMetaKey('modelcontextprotocol.io/x', '2025-06-18'), true);
    assert.equal(isReservedMetaKey('com.example.mcp/x', '2025-06-18'), false);
    assert.equal(isReservedMetaKey('io.modelcontextprotocol/x', '2025-03-26'), false);
  });

  it('MUST-47 extension identifiers need a prefix and a name', () => {
    assert.equal(isValidExtensionId(TASKS_EXTENSION_ID), true);
    assert.equal(isValidExtensionId('com.example/ledger-audit'), true);
    assert.equal(isValidExtensionId('tasks'), false);
    assert.match(validateExtensionId('tasks').join(), /must have a prefix/);
    assert.equal(isValidExtensionId('com.example/'), false);
    assert.equal(isValidExtensionId('1bad/x'), false);
  });
});
