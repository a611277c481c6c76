import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import {
  explainMissingCapability,
  headerMismatch,
  httpStatusForError,
  invalidParamsFromIssues,
  isResourceNotFound,
  missingRequiredClientCapability,
  resourceNotFound,
  unsupportedProtocolVersion,
} from '../../../src/protocol/errors.js';
import { isStateless, isSupportedRevision, latestRevision, latestStatefulRevision, allowsBatch } from '../../../src/protocol/revisions.js';

describe('protocol/errors', () => {
  it('builds the three MCP errors with the spec data shapes', () => {
    const h = headerMismatch('Mcp-Name does not match params.name');
    assert.ok(h instanceof JsonRpcError);
    assert.equal(h.code, -32020);
    assert.equal(h.data, undefined);
    const m = missingRequiredClientCapability({ elicitation: { url: {} } });
    assert.deepEqual(m.toJSON(), { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { elicitation: { url: {} } } } });
    const u = unsupportedProtocolVersion(['2025-11-25', '2026-07-28'], '2099-01-01');
    assert.equal(u.code, -32022);
    assert.deepEqual(u.data, { supported: ['2025-11-25', '2026-07-28'], requested: '2099-01-01' });
    assert.equal(unsupportedProtocolVersion(['2025-11-25'], '1.0', { legacy: true }).code, -32602);
  });

  it('MUST-18 resource-not-found is -32602 with data.uri on 2026-07-28, -32002 on legacy', () => {
    const modern = resourceNotFound('file:///missing', '2026-07-28');
    assert.deepEqual(modern.toJSON(), { code: -32602, message: 'Resource not found', data: { uri: 'file:///missing' } });
    assert.equal(resourceNotFound('file:///missing', '2025-11-25').code, -32002);
    assert.equal(isResourceNotFound(modern.toJSON()), true);
    assert.equal(isResourceNotFound({ code: -32002, message: 'x' }), true);
    assert.equal(isResourceNotFound({ code: -32602, message: 'x' }), false);
  });

  it('invalidParamsFromIssues names the first path and lists all issues', () => {
    const e = invalidParamsFromIssues([
      { path: ['params', 'arguments', 'name'], message: 'expected string' },
      { path: ['params', 'x'], message: 'is required' },
    ]);
    assert.equal(e.message, 'Invalid params: params.arguments.name: expected string');
    assert.deepEqual(e.data, { issues: [{ path: 'params.arguments.name', message: 'expected string' }, { path: 'params.x', message: 'is required' }] });
  });

  it('maps codes to HTTP statuses', () => {
    assert.equal(httpStatusForError(-32601), 404);
    for (const c of [-32020, -32021, -32022]) assert.equal(httpStatusForError(c), 400);
    assert.equal(httpStatusForError(-32603), 200);
    assert.equal(httpStatusForError(-32602), 200);
    assert.equal(httpStatusForError({ code: -32602, message: 'x', data: { issues: [{ path: 'params._meta', message: 'is required' }] } }), 400);
  });

  it('one mapping for the protocol and the HTTP server: every code, with and without missingMeta', () => {
    const metaIssue = { code: -32602, message: 'x', data: { issues: [{ path: 'params._meta', message: 'is required' }] } };
    const otherIssue = { code: -32602, message: 'x', data: { issues: [{ path: 'params.arguments.city', message: 'expected string' }] } };
    const table: ReadonlyArray<readonly [number | typeof metaIssue, boolean | undefined, number]> = [
      [-32601, undefined, 404],
      [-32601, true, 404],
      [-32020, undefined, 400],
      [-32021, undefined, 400],
      [-32022, undefined, 400],
      [-32700, undefined, 400],
      [-32600, undefined, 400],
      [-32700, false, 400],
      // -32602: the caller's missingMeta decides when given, else the error's data.issues.
      [-32602, undefined, 200],
      [-32602, true, 400],
      [-32602, false, 200],
      [metaIssue, undefined, 400],
      [metaIssue, false, 200],
      [otherIssue, undefined, 200],
      [otherIssue, true, 400],
      [{ code: -32602, message: 'x', data: { issues: [{ path: 'params', message: 'is required' }] } }, undefined, 400],
      // Everything else is an ordinary error answer: 200 with the error body.
      [-32603, undefined, 200],
      [-32603, true, 200],
      [-32002, undefined, 200],
      [-32042, undefined, 200],
      [-1, undefined, 200],
    ];
    for (const [error, missingMeta, status] of table) {
      assert.equal(httpStatusForError(error, missingMeta), status, `${JSON.stringify(error)} with missingMeta ${String(missingMeta)}`);
    }
  });
});

describe('protocol/revisions', () => {
  it('knows eras and batching', () => {
    assert.equal(latestRevision, '2026-07-28');
    assert.equal(latestStatefulRevision, '2025-11-25');
    assert.equal(isStateless('2026-07-28'), true);
    assert.equal(isStateless('2025-11-25'), false);
    assert.equal(isSupportedRevision('2025-06-18'), true);
    assert.equal(isSupportedRevision('2024-11-05'), false);
    assert.equal(isSupportedRevision(20250618), false);
    assert.equal(allowsBatch('2025-03-26'), true);
    assert.equal(allowsBatch('2025-06-18'), false);
  });
});

describe('explainMissingCapability', () => {
  it('names one or several capabilities from data.requiredCapabilities; other errors pass through', () => {
    const one = explainMissingCapability(missingRequiredClientCapability({ elicitation: {} }));
    assert.ok(one instanceof JsonRpcError);
    assert.equal(one.message, 'The server needs the client capability elicitation (declare it with a handler)');
    const two = explainMissingCapability(missingRequiredClientCapability({ sampling: {}, elicitation: { url: {} } })) as JsonRpcError;
    assert.equal(two.message, 'The server needs the client capabilities sampling, elicitation.url (declare them with a handler)');
    const other = JsonRpcError.methodNotFound('x');
    assert.equal(explainMissingCapability(other), other);
  });
});
