import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeRequestParams } from '../../../src/protocol/codec.js';
import { CallToolRequest, lookupMethod, methodRegistry, type ParamsOf } from '../../../src/protocol/methods.js';
import { TASKS_EXTENSION_ID } from '../../../src/protocol/meta.js';
import { supportedRevisions, type ProtocolRevision } from '../../../src/protocol/revisions.js';

const present = (rev: ProtocolRevision, m: string) => methodRegistry(rev).has(m);

describe('protocol/methods: registries per era', () => {
  it('registries are built once', () => {
    for (const rev of supportedRevisions) assert.equal(methodRegistry(rev), methodRegistry(rev));
  });

  it('2026-07-28 has no handshake, ping, setLevel, subscribe or server-to-client requests', () => {
    for (const m of [
      'initialize',
      'notifications/initialized',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'notifications/roots/list_changed',
      'notifications/elicitation/complete',
      'sampling/createMessage',
      'roots/list',
      'elicitation/create',
      'tasks/result',
      'tasks/list',
      'notifications/tasks/status',
    ]) {
      assert.equal(present('2026-07-28', m), false, m);
    }
  });

  it('2026-07-28 adds server/discover and subscriptions/listen; legacy revisions lack them', () => {
    for (const m of ['server/discover', 'subscriptions/listen', 'notifications/subscriptions/acknowledged']) {
      assert.equal(present('2026-07-28', m), true, m);
      for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) assert.equal(present(rev, m), false, `${rev} ${m}`);
    }
  });

  it('elicitation/create appears in 2025-06-18; notifications/elicitation/complete only in 2025-11-25', () => {
    assert.equal(present('2025-03-26', 'elicitation/create'), false);
    assert.equal(present('2025-06-18', 'elicitation/create'), true);
    assert.equal(present('2025-11-25', 'elicitation/create'), true);
    assert.equal(present('2025-06-18', 'notifications/elicitation/complete'), false);
    assert.equal(present('2025-11-25', 'notifications/elicitation/complete'), true);
  });

  it('core tasks only in 2025-11-25; the 2026 tasks extension is a flagged group', () => {
    for (const m of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'notifications/tasks/status']) {
      assert.equal(present('2025-11-25', m), true, m);
      assert.equal(present('2025-06-18', m), false, m);
      assert.equal(lookupMethod('2025-11-25', m)?.extension, undefined);
    }
    for (const m of ['tasks/get', 'tasks/update', 'tasks/cancel', 'notifications/tasks']) {
      assert.equal(lookupMethod('2026-07-28', m)?.extension, TASKS_EXTENSION_ID, m);
    }
    assert.equal(lookupMethod('2026-07-28', 'tasks/get')?.mcpNameParam, 'taskId');
  });

  it('2026 metadata: MRTR, caching, pagination and Mcp-Name sources', () => {
    const mrtr = [...methodRegistry('2026-07-28').values()].filter((s) => s.mrtr === true).map((s) => s.method).sort();
    assert.deepEqual(mrtr, ['prompts/get', 'resources/read', 'tools/call']);
    const cacheable = [...methodRegistry('2026-07-28').values()].filter((s) => s.cacheable === true).map((s) => s.method).sort();
    assert.deepEqual(cacheable, ['prompts/list', 'resources/list', 'resources/read', 'resources/templates/list', 'server/discover', 'tools/list']);
    assert.equal(lookupMethod('2026-07-28', 'tools/call')?.mcpNameParam, 'name');
    assert.equal(lookupMethod('2026-07-28', 'prompts/get')?.mcpNameParam, 'name');
    assert.equal(lookupMethod('2026-07-28', 'resources/read')?.mcpNameParam, 'uri');
    assert.equal(lookupMethod('2026-07-28', 'tools/list')?.paginated, true);
    assert.equal(lookupMethod('2026-07-28', 'subscriptions/listen')?.serverCapability, undefined, 'listen is never gated');
  });

  it('batching-era lifecycle is present in every legacy revision', () => {
    for (const rev of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) {
      for (const m of ['initialize', 'notifications/initialized', 'ping', 'roots/list', 'sampling/createMessage']) assert.equal(present(rev, m), true);
      assert.equal(lookupMethod(rev, 'ping')?.direction, 'both');
      assert.equal(lookupMethod(rev, 'sampling/createMessage')?.direction, 'serverToClient');
    }
  });

  it('absence answers -32601: initialize on 2026-07-28, server/discover on 2025-11-25', () => {
    const a = decodeRequestParams('2026-07-28', 'initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    assert.ok(!a.ok && a.error.code === -32601);
    const b = decodeRequestParams('2025-11-25', 'server/discover', {});
    assert.ok(!b.ok && b.error.code === -32601);
    const c = decodeRequestParams('2025-03-26', 'elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: {} } });
    assert.ok(!c.ok && c.error.code === -32601);
  });

  it('descriptors carry the wire name and typed params', () => {
    assert.equal(CallToolRequest.method, 'tools/call');
    assert.equal(CallToolRequest.kind, 'request');
    const params: ParamsOf<typeof CallToolRequest> = { name: 'x', arguments: { a: 1 } };
    assert.equal(params.name, 'x');
  });
});
