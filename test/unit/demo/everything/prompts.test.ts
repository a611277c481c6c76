import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG_BASE64 } from '../../../../src/demo/everything/fixtures.js';
import { elicitAccept, rpcError, start, type Harness, type Result } from './support.js';

type Prompt = Result & { messages: { role: string; content: Record<string, unknown> }[] };

describe('everything: prompts', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  const get = async (name: string, args?: Record<string, string>, more: Record<string, unknown> = {}) =>
    (await h.request('prompts/get', { name, ...(args === undefined ? {} : { arguments: args }), ...more })) as Prompt;

  it('lists the five prompts with their arguments', async () => {
    const { prompts } = (await h.request('prompts/list')) as { prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[] };
    assert.deepEqual(
      prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `${a.name}${a.required === true ? '!' : ''}`)]),
      [
        ['test_simple_prompt', []],
        ['test_prompt_with_arguments', ['arg1!', 'arg2!']],
        ['test_prompt_with_embedded_resource', ['resourceUri!']],
        ['test_prompt_with_image', []],
        ['test_input_required_result_prompt', []],
      ],
    );
  });

  it('gets the simple prompt', async () => {
    const p = await get('test_simple_prompt');
    assert.deepEqual(p.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
    assert.equal(p.resultType, 'complete');
  });

  it('substitutes the arguments', async () => {
    const p = await get('test_prompt_with_arguments', { arg1: 'testValue1', arg2: 'testValue2' });
    assert.deepEqual(p.messages[0]?.content, { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" });
  });

  it('a missing required argument is -32602 naming it', async () => {
    const error = await rpcError(get('test_prompt_with_arguments', { arg1: 'only' }), -32602);
    assert.match(error.message, /arg2/);
  });

  it('embeds the resource at the given uri', async () => {
    const p = await get('test_prompt_with_embedded_resource', { resourceUri: 'test://example-resource' });
    assert.deepEqual(p.messages, [
      { role: 'user', content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);
  });

  it('includes the image', async () => {
    const p = await get('test_prompt_with_image');
    assert.deepEqual(p.messages[0]?.content, { type: 'image', data: PNG_BASE64, mimeType: 'image/png' });
    assert.equal(p.messages[1]?.content['text'], 'Please analyze the image above.');
  });

  it('MRTR prompt: asks user_context, then renders with it', async () => {
    const r1 = await get('test_input_required_result_prompt');
    assert.equal(r1.resultType, 'input_required');
    assert.deepEqual(r1.inputRequests, {
      user_context: {
        method: 'elicitation/create',
        params: {
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        },
      },
    });
    assert.equal(r1['messages'], undefined);
    const r2 = await get('test_input_required_result_prompt', undefined, { requestState: r1.requestState, inputResponses: { user_context: elicitAccept({ context: 'test context' }) } });
    assert.equal(r2.resultType, 'complete');
    assert.deepEqual(r2.messages, [{ role: 'user', content: { type: 'text', text: 'Prompt with context: test context' } }]);
  });

  it('MRTR prompt: -32021 without the elicitation capability', async () => {
    await rpcError(h.request('prompts/get', { name: 'test_input_required_result_prompt' }, { caps: { sampling: {} } }), -32021);
  });

  it('completes prompt arguments by prefix', async () => {
    const complete = async (name: string, value: string) =>
      ((await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name, value } })) as { completion: { values: string[] } })
        .completion.values;
    assert.deepEqual(await complete('arg1', 'par'), ['paris', 'park', 'party']);
    assert.deepEqual(await complete('arg1', 'test'), ['test', 'testing']);
    assert.deepEqual(await complete('arg2', 'hel'), ['hello', 'help']);
  });

  it('completion of an argument without a completer is an empty list', async () => {
    const done = (await h.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_embedded_resource' },
      argument: { name: 'resourceUri', value: 'test' },
    })) as { completion: { values: string[]; hasMore: boolean } };
    assert.deepEqual(done.completion.values, []);
    assert.equal(done.completion.hasMore, false);
  });
});
