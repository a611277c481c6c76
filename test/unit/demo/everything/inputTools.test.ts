import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULTS_FORM, ENUMS_FORM, USER_FORM } from '../../../../src/demo/everything/fixtures.js';
import { elicitAccept, rpcError, sampled, settle, start, textOf, type Harness, type Result } from './support.js';

function onlyRequest(result: Result): { key: string; method: string; params: Record<string, unknown>; state: string } {
  assert.equal(result.resultType, 'input_required', JSON.stringify(result));
  const entries = Object.entries(result.inputRequests ?? {});
  assert.equal(entries.length, 1);
  const [key, request] = entries[0] as [string, { method: string; params: Record<string, unknown> }];
  return { key, method: request.method, params: request.params, state: String(result.requestState) };
}

describe('everything: sampling and elicitation tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('test_sampling sends the prompt to the client model and reports the answer', async () => {
    const q = onlyRequest(await h.call('test_sampling', { prompt: 'Test prompt for sampling' }));
    assert.equal(q.method, 'sampling/createMessage');
    assert.deepEqual(q.params, { messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 });
    const done = await h.call('test_sampling', { prompt: 'Test prompt for sampling' }, { requestState: q.state, inputResponses: { [q.key]: sampled('This is a test response') } });
    assert.equal(textOf(done), 'LLM response: This is a test response');
  });

  it('test_sampling accepts an array of content blocks in the answer', async () => {
    const q = onlyRequest(await h.call('test_sampling', { prompt: 'p' }));
    const answer = { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] };
    assert.equal(textOf(await h.call('test_sampling', { prompt: 'p' }, { requestState: q.state, inputResponses: { [q.key]: answer } })), 'LLM response: one\ntwo');
  });

  it('a state issued for other arguments is rejected', async () => {
    const q = onlyRequest(await h.call('test_sampling', { prompt: 'first' }));
    await rpcError(h.call('test_sampling', { prompt: 'second' }, { requestState: q.state, inputResponses: { [q.key]: sampled('x') } }), -32602);
  });

  it('test_elicitation asks for username and email with the given message', async () => {
    const q = onlyRequest(await h.call('test_elicitation', { message: 'Please provide your information' }));
    assert.deepEqual(q.params, { message: 'Please provide your information', requestedSchema: USER_FORM });
    const done = await h.call('test_elicitation', { message: 'Please provide your information' }, {
      requestState: q.state,
      inputResponses: { [q.key]: elicitAccept({ username: 'testuser', email: 'test@example.com' }) },
    });
    assert.equal(textOf(done), 'User response: action=accept, content={"username":"testuser","email":"test@example.com"}');
  });

  it('test_elicitation reports a decline', async () => {
    const q = onlyRequest(await h.call('test_elicitation', { message: 'm' }));
    const done = await h.call('test_elicitation', { message: 'm' }, { requestState: q.state, inputResponses: { [q.key]: { action: 'decline' } } });
    assert.equal(textOf(done), 'User response: action=decline, content={}');
  });

  it('SEP-1034: the form carries a default for every primitive type', async () => {
    const q = onlyRequest(await h.call('test_elicitation_sep1034_defaults'));
    assert.deepEqual(q.params['requestedSchema'], DEFAULTS_FORM);
    const props = DEFAULTS_FORM.properties as Record<string, { default?: unknown }>;
    assert.deepEqual(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.default])), { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true });
    const content = { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false };
    const done = await h.call('test_elicitation_sep1034_defaults', {}, { requestState: q.state, inputResponses: { [q.key]: elicitAccept(content) } });
    assert.equal(textOf(done), `Elicitation completed: action=accept, content=${JSON.stringify(content)}`);
  });

  it('SEP-1330: the form carries the five enum shapes', async () => {
    const q = onlyRequest(await h.call('test_elicitation_sep1330_enums'));
    assert.deepEqual(q.params['requestedSchema'], ENUMS_FORM);
    const props = (q.params['requestedSchema'] as { properties: Record<string, Record<string, unknown>> }).properties;
    assert.deepEqual(props['legacyEnum']?.['enumNames'], ['Option One', 'Option Two', 'Option Three']);
    assert.equal((props['titledSingle']?.['oneOf'] as unknown[]).length, 3);
    assert.equal(((props['titledMulti']?.['items'] as { anyOf: unknown[] }).anyOf).length, 3);
    const content = { untitledSingle: 'option1', titledSingle: 'value1', legacyEnum: 'opt1', untitledMulti: ['option1', 'option2'], titledMulti: ['value1'] };
    const done = await h.call('test_elicitation_sep1330_enums', {}, { requestState: q.state, inputResponses: { [q.key]: elicitAccept(content) } });
    assert.equal(textOf(done), `Elicitation completed: action=accept, content=${JSON.stringify(content)}`);
  });

  it('test_missing_capability: -32021 naming sampling when undeclared; asks when declared', async () => {
    const error = await rpcError(h.call('test_missing_capability', {}, {}, {}), -32021);
    assert.deepEqual(error.data, { requiredCapabilities: { sampling: {} } });
    await rpcError(h.call('test_missing_capability', {}, {}, { elicitation: {} }), -32021);
    const q = onlyRequest(await h.call('test_missing_capability', {}, {}, { sampling: {} }));
    assert.equal(q.method, 'sampling/createMessage');
    const done = await h.call('test_missing_capability', {}, { requestState: q.state, inputResponses: { [q.key]: sampled('ok') } }, { sampling: {} });
    assert.equal(textOf(done), 'Success: ok');
  });

  it('test_streaming_elicitation: progress first, then the question, never a request on the stream', async () => {
    h.notifications.length = 0;
    const q = onlyRequest(await h.call('test_streaming_elicitation', {}, { _meta: { progressToken: 'stream-1' } }, { elicitation: {} }));
    assert.equal(q.method, 'elicitation/create');
    await settle();
    assert.deepEqual(h.notifications.map((n) => [n.method, n.params?.['progress']]), [['notifications/progress', 50]]);
    const done = await h.call('test_streaming_elicitation', {}, { requestState: q.state, inputResponses: { [q.key]: elicitAccept({ ok: true }) } }, { elicitation: {} });
    assert.equal(textOf(done), 'Streaming complete: action=accept, content={"ok":true}');
    await rpcError(h.call('test_streaming_elicitation', {}, {}, { sampling: {} }), -32021);
  });
});
