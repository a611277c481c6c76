import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeRequestParams, decodeResult, effectiveTtlMs, encodeRequestParams, encodeResult } from '../../../src/protocol/codec.js';
import { httpStatusForError } from '../../../src/protocol/errors.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, TASKS_EXTENSION_ID } from '../../../src/protocol/meta.js';

const meta = (caps: object = {}) => ({ [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: caps });

describe('protocol/codec: decodeRequestParams', () => {
  it('MUST-34/35 a 2026 request missing _meta protocolVersion is -32602 naming params._meta…', () => {
    const r = decodeRequestParams('2026-07-28', 'tools/call', { name: 'x', _meta: { [META_CLIENT_CAPABILITIES]: {} } });
    assert.ok(!r.ok);
    assert.equal(r.error.code, -32602);
    assert.equal(r.error.message, 'Invalid params: params._meta["io.modelcontextprotocol/protocolVersion"]: is required');
  });

  it('MUST-36 a missing-_meta -32602 maps to HTTP 400; other -32602 to 200', () => {
    const r = decodeRequestParams('2026-07-28', 'tools/list', undefined);
    assert.ok(!r.ok);
    assert.equal(r.error.message, 'Invalid params: params._meta: is required');
    assert.equal(httpStatusForError(r.error.toJSON()), 400);
    const other = decodeRequestParams('2026-07-28', 'tools/call', { name: 5, _meta: meta() });
    assert.ok(!other.ok);
    assert.equal(httpStatusForError(other.error.toJSON()), 200);
  });

  it('names nested argument paths in the message', () => {
    const r = decodeRequestParams('2025-11-25', 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 3, value: 'v' } });
    assert.ok(!r.ok);
    assert.equal(r.error.message, 'Invalid params: params.argument.name: expected string, got number');
  });

  it('returns the very params object (no copy) and a frozen {} for absent legacy params', () => {
    const params = { name: 'x', arguments: {}, _meta: meta() };
    const r = decodeRequestParams('2026-07-28', 'tools/call', params);
    assert.ok(r.ok);
    assert.equal(r.value, params);
    const p = decodeRequestParams('2025-06-18', 'ping', undefined);
    assert.ok(p.ok && Object.isFrozen(p.value));
  });

  it('checks direction, server capability gates and enabled extensions', () => {
    const wrongWay = decodeRequestParams('2025-11-25', 'sampling/createMessage', { messages: [], maxTokens: 5 }, { from: 'client' });
    assert.ok(!wrongWay.ok && wrongWay.error.code === -32601);
    const gated = decodeRequestParams('2026-07-28', 'tools/list', { _meta: meta() }, { serverCapabilities: { prompts: {} } });
    assert.ok(!gated.ok && gated.error.code === -32601);
    const open = decodeRequestParams('2026-07-28', 'tools/list', { _meta: meta() }, { serverCapabilities: { tools: {} } });
    assert.ok(open.ok);
    const listen = decodeRequestParams('2026-07-28', 'subscriptions/listen', { notifications: {}, _meta: meta() }, { serverCapabilities: {} });
    assert.ok(listen.ok, 'subscriptions/listen is never gated');
  });

  it('2026 tasks extension: -32601 unless enabled, -32021 when the client did not declare it', () => {
    const params = { taskId: 't-1', _meta: meta() };
    const off = decodeRequestParams('2026-07-28', 'tasks/get', params);
    assert.ok(!off.ok && off.error.code === -32601);
    const undeclared = decodeRequestParams('2026-07-28', 'tasks/get', params, { extensions: new Set([TASKS_EXTENSION_ID]) });
    assert.ok(!undeclared.ok);
    assert.equal(undeclared.error.code, -32021);
    assert.deepEqual(undeclared.error.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } });
    const ok = decodeRequestParams('2026-07-28', 'tasks/get', { taskId: 't-1', _meta: meta({ extensions: { [TASKS_EXTENSION_ID]: {} } }) }, {
      extensions: new Set([TASKS_EXTENSION_ID]),
    });
    assert.ok(ok.ok);
  });
});

describe('protocol/codec: decodeResult', () => {
  it('MUST-10 an unrecognized resultType is an invalid response', () => {
    const r = decodeResult('2026-07-28', 'tools/call', { resultType: 'later', content: [] });
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'ERR_MCP_INVALID_RESPONSE');
    assert.match(r.error.message, /unrecognized resultType "later"/);
  });

  it('MUST-11 an absent resultType is treated as complete (and absent caching hints tolerated)', () => {
    const r = decodeResult('2026-07-28', 'tools/list', { tools: [] });
    assert.ok(r.ok);
    assert.equal(r.resultType, 'complete');
    assert.equal(effectiveTtlMs(r.value), 0);
    const strict = decodeResult('2026-07-28', 'tools/list', { tools: [] }, { strict: true });
    assert.ok(!strict.ok);
  });

  it('MUST-52 input_required only for tools/call, prompts/get, resources/read', () => {
    const irr = { resultType: 'input_required', requestState: 's' };
    for (const m of ['tools/call', 'prompts/get', 'resources/read']) {
      const r = decodeResult('2026-07-28', m, irr);
      assert.ok(r.ok && r.resultType === 'input_required', m);
    }
    for (const m of ['tools/list', 'completion/complete', 'server/discover']) assert.equal(decodeResult('2026-07-28', m, irr).ok, false, m);
  });

  it('MUST-54 input request values are only elicitation/create, sampling/createMessage or roots/list', () => {
    const r = decodeResult('2026-07-28', 'tools/call', { resultType: 'input_required', inputRequests: { a: { method: 'ping' } } });
    assert.ok(!r.ok);
    assert.match(r.error.message, /result\.inputRequests\.a\.method/);
  });

  it('MUST-9 "task" is accepted only when the tasks extension was advertised, and only for tools/call', () => {
    const task = { resultType: 'task', taskId: 't', status: 'working', createdAt: 'a', lastUpdatedAt: 'b', ttlMs: null };
    assert.equal(decodeResult('2026-07-28', 'tools/call', task).ok, false);
    assert.equal(decodeResult('2026-07-28', 'tools/call', task, { tasksExtension: true }).ok, true);
    assert.equal(decodeResult('2026-07-28', 'prompts/get', task, { tasksExtension: true }).ok, false);
  });

  it('legacy results have no resultType rules', () => {
    const r = decodeResult('2025-11-25', 'tools/call', { content: [{ type: 'text', text: 'hi' }] });
    assert.ok(r.ok && r.resultType === 'complete');
  });
});

describe('protocol/codec: encodeResult', () => {
  it('MUST-8 stamps resultType "complete" on 2026 results, copying only when needed', () => {
    const neutral = { content: [{ type: 'text', text: 'ok' }] };
    const wire = encodeResult('2026-07-28', 'tools/call', neutral);
    assert.notEqual(wire, neutral);
    assert.deepEqual(wire, { content: [{ type: 'text', text: 'ok' }], resultType: 'complete' });
    assert.equal(wire['content'], neutral.content, 'shallow copy only');
    const already = { resultType: 'input_required', requestState: 'x' };
    assert.equal(encodeResult('2026-07-28', 'tools/call', already), already);
  });

  it('gives cacheable 2026 results safe caching defaults and keeps explicit ones', () => {
    assert.deepEqual(encodeResult('2026-07-28', 'tools/list', { tools: [] }), { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const explicit = { tools: [], resultType: 'complete', ttlMs: 5000, cacheScope: 'public' };
    assert.equal(encodeResult('2026-07-28', 'tools/list', explicit), explicit);
    assert.deepEqual(encodeResult('2026-07-28', 'resources/read', { contents: [], ttlMs: 10 }), {
      contents: [],
      ttlMs: 10,
      resultType: 'complete',
      cacheScope: 'private',
    });
  });

  it('strips resultType, ttlMs and cacheScope on legacy revisions', () => {
    const neutral = { tools: [], resultType: 'complete', ttlMs: 5, cacheScope: 'public', nextCursor: 'n' };
    assert.deepEqual(encodeResult('2025-11-25', 'tools/list', neutral), { tools: [], nextCursor: 'n' });
    const plain = { tools: [] };
    assert.equal(encodeResult('2025-03-26', 'tools/list', plain), plain);
    assert.throws(() => encodeResult('2025-06-18', 'tools/call', { resultType: 'input_required' }), { code: 'ERR_MCP_INVALID_ARGUMENT' });
  });

  it('stamps per-request _meta on 2026 params and leaves legacy params alone', () => {
    const params = { name: 't', _meta: { progressToken: 4 } };
    const wire = encodeRequestParams('2026-07-28', params, { clientCapabilities: { elicitation: {} }, logLevel: 'info' });
    assert.deepEqual(wire, {
      name: 't',
      _meta: { progressToken: 4, [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: { elicitation: {} }, 'io.modelcontextprotocol/logLevel': 'info' },
    });
    assert.ok(decodeRequestParams('2026-07-28', 'tools/call', wire).ok);
    assert.equal(encodeRequestParams('2025-11-25', params, { clientCapabilities: {} }), params);
  });
});
