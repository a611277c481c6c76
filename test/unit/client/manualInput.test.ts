// Manual MRTR: `{ input: 'manual' }` hands the InputRequiredResult to the caller, who retries
// with `inputResponses` and `requestState` through the call options; and the low-level
// `request`, which forwards any method as is. Against our McpServer over the in-memory pair.
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInputRequired } from '../../../src/client/calls.js';
import type { McpClientOptions } from '../../../src/client/types.js';
import type { ProtocolRevision } from '../../../src/protocol/revisions.js';
import { buildAskingServer } from './fixtures/askingApp.js';
import { connectServer } from './support.js';

const ELICITATION = { elicitation: { form: {} } };

function connectAsking(options: McpClientOptions, versions?: readonly ProtocolRevision[]) {
  return connectServer(buildAskingServer(versions), options);
}

function stripMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta: _m, ...rest } = params ?? {};
  return rest;
}

/** A client-level handler that must never be used by a manual call. */
function countingHandlers() {
  const asked: string[] = [];
  return { asked, handlers: { elicitation: (params: { message: string }) => (asked.push(params.message), { action: 'decline' as const }) } };
}

describe('McpClient manual MRTR (stateless era, our server)', () => {
  it('returns the InputRequiredResult of callTool, and completes the call on the retry with inputResponses and requestState', async () => {
    const { asked, handlers } = countingHandlers();
    const { client, wire, close } = await connectAsking({ handlers });
    try {
      assert.equal(client.era, 'stateless');
      const first = await client.callTool('ask', { question: 'Name?' }, { input: 'manual' });
      assert.ok(isInputRequired(first), 'the first round is handed back');
      const request = first.inputRequests?.['answer'];
      assert.equal(request?.method, 'elicitation/create');
      assert.equal((request?.params as { message?: string } | undefined)?.message, 'Name?');
      assert.equal(typeof first.requestState, 'string');
      const done = await client.callTool(
        'ask',
        { question: 'Name?' },
        { input: 'manual', inputResponses: { answer: { action: 'accept', content: { answer: 'Ada' } } }, ...(first.requestState !== undefined ? { requestState: first.requestState } : {}) },
      );
      assert.ok(!isInputRequired(done));
      assert.deepEqual(done.content, [{ type: 'text', text: 'Name? -> Ada' }]);
      assert.deepEqual(asked, [], 'the client-level handler never answered a manual round');
      const calls = wire.requests('tools/call');
      assert.equal(calls.length, 2);
      assert.deepEqual(stripMeta(calls[1]?.params), {
        name: 'ask',
        arguments: { question: 'Name?' },
        inputResponses: { answer: { action: 'accept', content: { answer: 'Ada' } } },
        requestState: first.requestState,
      });
    } finally {
      await close();
    }
  });

  it('hands back the rounds of getPrompt and readResource, and never caches or serves a retry from the cache', async () => {
    const { client, close } = await connectAsking({ capabilities: ELICITATION });
    try {
      const prompt = await client.getPrompt('ask_prompt', { question: 'Colour?' }, { input: 'manual' });
      assert.ok(isInputRequired(prompt));
      const rendered = await client.getPrompt(
        'ask_prompt',
        { question: 'Colour?' },
        { input: 'manual', inputResponses: { answer: { action: 'accept', content: { answer: 'blue' } } }, ...(prompt.requestState !== undefined ? { requestState: prompt.requestState } : {}) },
      );
      assert.ok(!isInputRequired(rendered));
      assert.deepEqual(rendered.messages[0]?.content, { type: 'text', text: 'Colour? -> blue' });

      const read = await client.readResource('test://asked', { input: 'manual' });
      assert.ok(isInputRequired(read));
      const state = read.requestState !== undefined ? { requestState: read.requestState } : {};
      const accepted = await client.readResource('test://asked', { input: 'manual', inputResponses: { answer: { action: 'accept', content: { answer: 'this' } } }, ...state });
      assert.ok(!isInputRequired(accepted));
      assert.equal((accepted.contents[0] as { text?: string }).text, 'Which? -> this');
      // Neither the interim result nor the retried answer was cached: asking again asks again.
      assert.ok(isInputRequired(await client.readResource('test://asked', { input: 'manual' })));
    } finally {
      await close();
    }
  });

  it('keeps one call\'s retry fields out of every other call (no leak into the next or a parallel call)', async () => {
    const { client, wire, close } = await connectAsking({ capabilities: ELICITATION });
    try {
      const first = await client.callTool('ask', { question: 'A?' }, { input: 'manual' });
      assert.ok(isInputRequired(first));
      const retry = {
        input: 'manual' as const,
        inputResponses: { answer: { action: 'accept', content: { answer: 'a' } } },
        ...(first.requestState !== undefined ? { requestState: first.requestState } : {}),
      };
      const [done, parallel] = await Promise.all([client.callTool('ask', { question: 'A?' }, retry), client.callTool('ask', { question: 'B?' }, { input: 'manual' })]);
      assert.ok(!isInputRequired(done));
      assert.ok(isInputRequired(parallel), 'the parallel call asked afresh');
      const later = await client.callTool('ask', { question: 'C?' }, { input: 'manual' });
      assert.ok(isInputRequired(later));
      for (const call of wire.requests('tools/call')) {
        const question = (call.params?.['arguments'] as { question?: string } | undefined)?.question;
        if (question !== 'A?') {
          assert.equal(call.params?.['inputResponses'], undefined, `${String(question)} carried inputResponses`);
          assert.equal(call.params?.['requestState'], undefined, `${String(question)} carried requestState`);
        }
      }
    } finally {
      await close();
    }
  });

  it('continues an auto call from the retry fields it was given', async () => {
    const { client, close } = await connectAsking({ handlers: { elicitation: () => ({ action: 'accept', content: { answer: 'never used' } }) } });
    try {
      const first = await client.callTool('ask', { question: 'Q?' }, { input: 'manual' });
      assert.ok(isInputRequired(first));
      const done = await client.callTool('ask', { question: 'Q?' }, {
        inputResponses: { answer: { action: 'accept', content: { answer: 'given' } } },
        ...(first.requestState !== undefined ? { requestState: first.requestState } : {}),
      });
      assert.deepEqual(done.content, [{ type: 'text', text: 'Q? -> given' }]);
    } finally {
      await close();
    }
  });

  it('request() forwards any method stamped and decoded, and hands back input_required with input: manual', async () => {
    const { client, wire, close } = await connectAsking({ capabilities: ELICITATION });
    try {
      const listed = await client.request('tools/list', {});
      assert.ok(Array.isArray(listed['tools']));
      const listRequest = wire.requests('tools/list').at(-1);
      assert.equal((listRequest?.params?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
      const raw = await client.request('tools/call', { name: 'ask', arguments: { question: 'Raw?' } }, { input: 'manual' });
      assert.equal(raw['resultType'], 'input_required');
      assert.ok(isInputRequired(raw));
      const done = await client.request(
        'tools/call',
        { name: 'ask', arguments: { question: 'Raw?' } },
        { input: 'manual', inputResponses: { answer: { action: 'decline' } }, ...(raw.requestState !== undefined ? { requestState: raw.requestState } : {}) },
      );
      assert.deepEqual(done['content'], [{ type: 'text', text: 'Raw? -> decline' }]);
    } finally {
      await close();
    }
  });
});

describe('McpClient manual MRTR (stateful era, our server)', () => {
  it('resolves a manual call with the complete result: the question came as a request, answered by the handlers', async () => {
    const { client, close } = await connectAsking({ handlers: { elicitation: () => ({ action: 'accept', content: { answer: 'Bo' } }) } }, ['2025-11-25']);
    try {
      assert.equal(client.era, 'stateful');
      const result = await client.callTool('ask', { question: 'Who?' }, { input: 'manual' });
      assert.ok(!isInputRequired(result));
      assert.deepEqual(result.content, [{ type: 'text', text: 'Who? -> Bo' }]);
    } finally {
      await close();
    }
  });
});
