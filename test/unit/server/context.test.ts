import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputRequiredError } from '../../../src/server/index.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { Connection } from '../../../src/jsonrpc/connection.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { connectRaw, meta } from './support.js';

const ASK = { message: 'Proceed?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } as const;

describe('InputRequiredError', () => {
  it('is an Error carrying the questions of the round, and the server turns it into an InputRequiredResult', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    let seen: unknown;
    server.tool('ask', {}, async (_args, ctx) => {
      try {
        await ctx.elicit(ASK, { key: 'go' });
        return 'answered';
      } catch (error) {
        seen = error;
        throw error;
      }
    });
    const raw = await connectRaw(server);
    const result = await raw.call('tools/call', { name: 'ask', arguments: {}, _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } });
    assert.ok(seen instanceof InputRequiredError);
    assert.ok(seen instanceof Error);
    assert.equal(seen.name, 'InputRequiredError');
    assert.deepEqual(Object.keys(seen.requests), ['go']);
    assert.equal(result['resultType'], 'input_required');
    assert.deepEqual(result['inputRequests'], { go: { method: 'elicitation/create', params: ASK } });
    await raw.close();
  });

  it('a handler that swallows the signal answers normally (no input_required without the signal)', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    server.tool('ask', {}, async (_args, ctx) => {
      try {
        await ctx.elicit(ASK, { key: 'go' });
      } catch (error) {
        if (!(error instanceof InputRequiredError)) throw error;
      }
      return 'gave up asking';
    });
    const raw = await connectRaw(server);
    const result = await raw.call('tools/call', { name: 'ask', arguments: {}, _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } });
    assert.equal(result['resultType'], 'complete');
    assert.deepEqual(result['content'], [{ type: 'text', text: 'gave up asking' }]);
    await raw.close();
  });
});

describe('HandlerContext.principal', () => {
  async function whoami(options: Parameters<typeof createInMemoryPair>[0]): Promise<unknown> {
    const server = new McpServer({ name: 't', version: '1' });
    server.tool('whoami', {}, (_args, ctx) => JSON.stringify(ctx.principal ?? null));
    const [clientSide, serverSide] = createInMemoryPair(options);
    await server.connect(serverSide);
    const conn = new Connection(clientSide);
    await conn.start();
    const result = await conn.request('tools/call', { name: 'whoami', arguments: {}, _meta: meta() });
    await conn.close();
    await server.close();
    return JSON.parse((result['content'] as { text: string }[])[0]?.text ?? 'null');
  }

  it('is the typed DispatchEnv.principal the transport set', async () => {
    assert.deepEqual(await whoami({ principal: { id: 'alice' } }), { id: 'alice' });
  });

  it('principal spoofing through a string extra.principal: ignored, the request is anonymous', async () => {
    assert.equal(await whoami({ extra: { principal: 'admin' } }), null);
  });
});
