import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { elicitAccept, roots, rpcError, sampled, start, textOf, type Harness, type Result } from './support.js';

/** Asserts an InputRequiredResult asking exactly `keys` (by method) and returns it. */
function asks(result: Result, expected: Record<string, string>): Result & { requestState: string } {
  assert.equal(result.resultType, 'input_required', JSON.stringify(result));
  assert.deepEqual(
    Object.fromEntries(Object.entries(result.inputRequests ?? {}).map(([k, v]) => [k, v.method])),
    expected,
  );
  assert.equal(typeof result.requestState, 'string');
  assert.equal(result.content, undefined);
  return result as Result & { requestState: string };
}

describe('everything: MRTR single-input tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('elicitation: asks user_name, then greets with the answer', async () => {
    const r1 = asks(await h.call('test_input_required_result_elicitation'), { user_name: 'elicitation/create' });
    assert.deepEqual(r1.inputRequests?.['user_name']?.params, {
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const r2 = await h.call('test_input_required_result_elicitation', {}, { requestState: r1.requestState, inputResponses: { user_name: elicitAccept({ name: 'Alice' }) } });
    assert.equal(r2.resultType, 'complete');
    assert.equal(textOf(r2), 'Hello, Alice!');
  });

  it('elicitation: extra unknown inputResponses are ignored (no requestState needed)', async () => {
    const r = await h.call('test_input_required_result_elicitation', {}, {
      inputResponses: { user_name: elicitAccept({ name: 'Bob' }), unknown_extra_key: elicitAccept({ foo: 'bar' }), another_unexpected: elicitAccept({ baz: 123 }) },
    });
    assert.equal(textOf(r), 'Hello, Bob!');
  });

  it('elicitation: a retry without the asked answer is re-asked with a new input_required, not an error', async () => {
    const r1 = asks(await h.call('test_input_required_result_elicitation'), { user_name: 'elicitation/create' });
    const r2 = asks(
      await h.call('test_input_required_result_elicitation', {}, { requestState: r1.requestState, inputResponses: { wrong_key: elicitAccept({ data: 'x' }) } }),
      { user_name: 'elicitation/create' },
    );
    assert.notEqual(r2.requestState, r1.requestState);
    const r3 = await h.call('test_input_required_result_elicitation', {}, { requestState: r2.requestState, inputResponses: { user_name: elicitAccept({ name: 'Cy' }) } });
    assert.equal(textOf(r3), 'Hello, Cy!');
  });

  it('elicitation: a malformed answer is -32602; a declined one completes with the fallback', async () => {
    await rpcError(h.call('test_input_required_result_elicitation', {}, { inputResponses: { user_name: 12345 } }), -32602);
    const nulled = await h.call('test_input_required_result_elicitation', {}, { inputResponses: null }).catch((e: { code?: number }) => e);
    assert.ok('code' in nulled ? nulled.code === -32602 : (nulled as Result).resultType === 'input_required', 'null inputResponses never completes');
    const declined = await h.call('test_input_required_result_elicitation', {}, { inputResponses: { user_name: { action: 'decline' } } });
    assert.equal(textOf(declined), 'Hello, unknown!');
  });

  it('sampling: asks capital_question, then reports the sampled text', async () => {
    const r1 = asks(await h.call('test_input_required_result_sampling'), { capital_question: 'sampling/createMessage' });
    assert.deepEqual(r1.inputRequests?.['capital_question']?.params, {
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
      maxTokens: 100,
    });
    const r2 = await h.call('test_input_required_result_sampling', {}, { requestState: r1.requestState, inputResponses: { capital_question: sampled('Paris.') } });
    assert.equal(textOf(r2), 'Sampling result: Paris.');
  });

  it('list roots: asks client_roots, then counts them', async () => {
    const r1 = asks(await h.call('test_input_required_result_list_roots'), { client_roots: 'roots/list' });
    const r2 = await h.call('test_input_required_result_list_roots', {}, {
      requestState: r1.requestState,
      inputResponses: { client_roots: roots('file:///a', 'file:///b') },
    });
    assert.equal(textOf(r2), 'Found 2 root(s): file:///a, file:///b');
  });

  it('a missing client capability is -32021 naming it, for each kind of question', async () => {
    for (const [tool, needed] of [
      ['test_input_required_result_elicitation', 'elicitation'],
      ['test_input_required_result_sampling', 'sampling'],
      ['test_input_required_result_list_roots', 'roots'],
    ] as const) {
      const error = await rpcError(h.call(tool, {}, {}, {}), -32021);
      assert.deepEqual(Object.keys((error.data as { requiredCapabilities: object }).requiredCapabilities), [needed], tool);
    }
  });
});

describe('everything: MRTR requestState', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('request_state: carries sealed data to the retry and validates it', async () => {
    const r1 = asks(await h.call('test_input_required_result_request_state'), { confirm: 'elicitation/create' });
    assert.match(r1.requestState, /^sb1\./);
    assert.doesNotMatch(r1.requestState, /request-state/, 'the carried data is encrypted, not readable');
    const r2 = await h.call('test_input_required_result_request_state', {}, { requestState: r1.requestState, inputResponses: { confirm: elicitAccept({ ok: true }) } });
    assert.equal(textOf(r2), 'state-ok: requestState validated');
  });

  it('request_state: the state is single-use (a replay is -32602)', async () => {
    const r1 = asks(await h.call('test_input_required_result_request_state'), { confirm: 'elicitation/create' });
    const retry = { requestState: r1.requestState, inputResponses: { confirm: elicitAccept({ ok: false }) } };
    assert.equal(textOf(await h.call('test_input_required_result_request_state', {}, retry)), 'state-ok: requestState validated; not confirmed');
    const error = await rpcError(h.call('test_input_required_result_request_state', {}, retry), -32602);
    assert.equal((error.data as { reason?: string }).reason, 'replayed');
  });

  it('request_state: an answer without the state is an isError result', async () => {
    const r = await h.call('test_input_required_result_request_state', {}, { inputResponses: { confirm: elicitAccept({ ok: true }) } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /requestState missing/);
  });

  it('tampered_state: a valid state completes, a modified one is -32602', async () => {
    const r1 = asks(await h.call('test_input_required_result_tampered_state'), { confirm: 'elicitation/create' });
    const answer = { confirm: elicitAccept({ ok: true }) };
    const tampered = await rpcError(h.call('test_input_required_result_tampered_state', {}, { requestState: `${r1.requestState}-TAMPERED`, inputResponses: answer }), -32602);
    assert.match(tampered.message, /requestState/);
    // Change the second-to-last character (all six of its bits are data; the last one may hold padding bits).
    const flipped = r1.requestState.slice(0, -2) + (r1.requestState.at(-2) === 'A' ? 'B' : 'A') + r1.requestState.slice(-1);
    assert.notEqual(flipped, r1.requestState);
    await rpcError(h.call('test_input_required_result_tampered_state', {}, { requestState: flipped, inputResponses: answer }), -32602);
    const ok = await h.call('test_input_required_result_tampered_state', {}, { requestState: r1.requestState, inputResponses: answer });
    assert.equal(textOf(ok), 'integrity-ok: state verified');
  });

  it('a state issued for one tool is rejected by another (bound to the request)', async () => {
    const r1 = asks(await h.call('test_input_required_result_tampered_state'), { confirm: 'elicitation/create' });
    const error = await rpcError(
      h.call('test_input_required_result_request_state', {}, { requestState: r1.requestState, inputResponses: { confirm: elicitAccept({ ok: true }) } }),
      -32602,
    );
    assert.equal((error.data as { reason?: string }).reason, 'wrong-params');
  });
});

describe('everything: MRTR multi-input tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('multiple_inputs: asks elicitation, sampling and roots in one round', async () => {
    const r1 = asks(await h.call('test_input_required_result_multiple_inputs'), {
      user_name: 'elicitation/create',
      greeting: 'sampling/createMessage',
      client_roots: 'roots/list',
    });
    const r2 = await h.call('test_input_required_result_multiple_inputs', {}, {
      requestState: r1.requestState,
      inputResponses: { user_name: elicitAccept({ name: 'Alice' }), greeting: sampled('Hello there!'), client_roots: roots('file:///test/root') },
    });
    assert.equal(textOf(r2), 'Name: Alice; Greeting: Hello there!; Roots: 1');
  });

  it('multiple_inputs: a partial answer re-asks only what is missing, keeping the given answers', async () => {
    const r1 = asks(await h.call('test_input_required_result_multiple_inputs'), {
      user_name: 'elicitation/create',
      greeting: 'sampling/createMessage',
      client_roots: 'roots/list',
    });
    const r2 = asks(
      await h.call('test_input_required_result_multiple_inputs', {}, { requestState: r1.requestState, inputResponses: { user_name: elicitAccept({ name: 'Dee' }) } }),
      { greeting: 'sampling/createMessage', client_roots: 'roots/list' },
    );
    const r3 = await h.call('test_input_required_result_multiple_inputs', {}, {
      requestState: r2.requestState,
      inputResponses: { greeting: sampled('Hi'), client_roots: roots() },
    });
    assert.equal(textOf(r3), 'Name: Dee; Greeting: Hi; Roots: 0');
  });

  it('multiple_inputs: -32021 when one of the three capabilities is missing', async () => {
    const error = await rpcError(h.call('test_input_required_result_multiple_inputs', {}, {}, { elicitation: {}, sampling: {} }), -32021);
    assert.deepEqual((error.data as { requiredCapabilities: object }).requiredCapabilities, { roots: {} });
  });

  it('multi_round: step1, then step2 with a new state, then the combined answer', async () => {
    const r1 = asks(await h.call('test_input_required_result_multi_round'), { step1: 'elicitation/create' });
    const r2 = asks(
      await h.call('test_input_required_result_multi_round', {}, { requestState: r1.requestState, inputResponses: { step1: elicitAccept({ name: 'Alice' }) } }),
      { step2: 'elicitation/create' },
    );
    assert.notEqual(r2.requestState, r1.requestState);
    assert.equal(r2.inputRequests?.['step2']?.params['message'], 'Step 2: What is your favorite color?');
    // Only step2 is answered now: step1 comes back from the sealed state.
    const r3 = await h.call('test_input_required_result_multi_round', {}, { requestState: r2.requestState, inputResponses: { step2: elicitAccept({ color: 'blue' }) } });
    assert.equal(r3.resultType, 'complete');
    assert.equal(textOf(r3), 'Multi-round complete for Alice who likes blue');
  });

  it('multi_round: a stale round-1 state with the step2 answer re-asks step1', async () => {
    const r1 = asks(await h.call('test_input_required_result_multi_round'), { step1: 'elicitation/create' });
    asks(
      await h.call('test_input_required_result_multi_round', {}, { requestState: r1.requestState, inputResponses: { step2: elicitAccept({ color: 'red' }) } }),
      { step1: 'elicitation/create' },
    );
  });

  it('capabilities: asks only for what the client declared', async () => {
    asks(await h.call('test_input_required_result_capabilities', {}, {}, { sampling: {} }), { sample_input: 'sampling/createMessage' });
    asks(await h.call('test_input_required_result_capabilities', {}, {}, { elicitation: {} }), { elicit_input: 'elicitation/create' });
    const both = asks(await h.call('test_input_required_result_capabilities', {}, {}, { elicitation: {}, sampling: {} }), {
      elicit_input: 'elicitation/create',
      sample_input: 'sampling/createMessage',
    });
    const done = await h.call(
      'test_input_required_result_capabilities',
      {},
      { requestState: both.requestState, inputResponses: { elicit_input: elicitAccept({ value: 'v' }), sample_input: sampled('s') } },
      { elicitation: {}, sampling: {} },
    );
    assert.equal(textOf(done), 'capabilities-ok: received elicit_input,sample_input');
    assert.equal(textOf(await h.call('test_input_required_result_capabilities', {}, {}, { roots: {} })), 'No supported capabilities declared');
  });

  it('tools/list and prompts/list never answer input_required', async () => {
    assert.equal((await h.request('tools/list')).resultType, 'complete');
    assert.equal((await h.request('prompts/list')).resultType, 'complete');
  });
});
