// Through the real gateway, a client learns the gateway's identity, never a downstream's: the
// downstream (our everything server over stdio, on the 2026-07-28 era, which stamps its own
// `serverInfo` into every result's `_meta`) must not show through in any response body, for a
// 2026-07-28 client (whose results the gateway stamps with its own) nor a 2025-11-25 one.
// See https://modelcontextprotocol.io/specification/draft/basic/lifecycle
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { META_SERVER_INFO } from '../../src/protocol/meta.js';
import { EVERYTHING_SERVER_NAME } from '../../src/demo/everything/fixtures.js';
import { everythingGatewayForFile, everythingEntry } from './fixtures/gatewayHarness.js';

const fixture = everythingGatewayForFile();

/** A client of `era` through the gateway, and every response body it received (SSE and JSON alike). */
async function recordingClient(era: 'stateless' | 'stateful'): Promise<{ client: McpClient; bodies: string[] }> {
  const bodies: string[] = [];
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    bodies.push(await response.clone().text());
    return response;
  };
  const client = new McpClient({ name: `leak-${era}`, version: '1' }, { era });
  await client.connect(new StreamableHttpClientTransport({ url: fixture.gateway().url, headers: { authorization: `Bearer ${fixture.gateway().token}` }, fetch: recording }));
  return { client, bodies };
}

/** Lists and uses every kind of thing the downstream offers, and one call that fails. */
async function useEverything(client: McpClient): Promise<void> {
  await client.listTools();
  await client.callTool('echo', { message: 'who are you' });
  await client.listResources();
  await client.readResource('test://static-text');
  await client.listPrompts();
  await client.getPrompt('test_simple_prompt');
  await assert.rejects(client.callTool('no-such-tool', {}));
}

describe('downstream identity leak through the gateway (#33)', { timeout: 60_000 }, () => {
  it('precondition: the downstream on its own stamps its serverInfo into a 2026-07-28 result', async () => {
    const entry = everythingEntry() as { command: string; args: string[] };
    const direct = new McpClient({ name: 'direct', version: '1' }, { era: 'stateless' });
    await direct.connect(new StdioClientTransport({ command: entry.command, args: entry.args }));
    try {
      const result = (await direct.callTool('echo', { message: 'x' })) as { _meta?: Record<string, { name?: string }> };
      assert.equal(result._meta?.[META_SERVER_INFO]?.name, EVERYTHING_SERVER_NAME);
    } finally {
      await direct.close();
    }
  });

  const cases = [
    { era: 'stateless', title: "downstream serverInfo leak: a 2026-07-28 client sees only the gateway's serverInfo in _meta, and the downstream's name in no response" },
    { era: 'stateful', title: "downstream serverInfo leak: a 2025-11-25 client sees the downstream's name in no response either" },
  ] as const;
  for (const { era, title } of cases) {
    it(title, async () => {
      const { client, bodies } = await recordingClient(era);
      try {
        assert.equal(client.era, era);
        await useEverything(client);
        const result = (await client.callTool('echo', { message: 'x' })) as { _meta?: Record<string, { name?: string }> };
        assert.equal(result._meta?.[META_SERVER_INFO]?.name, era === 'stateless' ? 'switchboard-gateway' : undefined);
        assert.ok(bodies.length >= 8, `${bodies.length} responses recorded`);
        for (const body of bodies) assert.equal(body.includes(EVERYTHING_SERVER_NAME), false, body.slice(0, 500));
      } finally {
        await client.close();
      }
    });
  }
});
