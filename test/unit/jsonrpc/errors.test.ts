// The named error codes: each meaning its own member, wire values where peers depend on them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode as SdkErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../../../src/jsonrpc/errors.js';

describe('jsonrpc/errors ErrorCode', () => {
  it('session not found keeps -32001, the body the official SDKs send with the 404 and look for', { timeout: 5_000 }, () => {
    assert.equal(ErrorCode.SessionNotFound, -32001);
  });

  it('the local session errors use the official SDK v1 values (RequestTimeout, ConnectionClosed)', { timeout: 5_000 }, () => {
    assert.equal(ErrorCode.RequestTimeout, SdkErrorCode.RequestTimeout);
    assert.equal(ErrorCode.ConnectionClosed, SdkErrorCode.ConnectionClosed);
  });

  it('code confusion: a gateway denial is neither a missing session, a timeout nor any JSON-RPC reserved code', { timeout: 5_000 }, () => {
    const others = Object.entries(ErrorCode).filter(([name]) => name !== 'Denied');
    for (const [name, code] of others) assert.notEqual(ErrorCode.Denied, code, name);
    assert.ok(ErrorCode.Denied > -32000 || ErrorCode.Denied < -32768, 'outside -32768..-32000 (the spec asks new codes to be allocated there)');
  });
});
