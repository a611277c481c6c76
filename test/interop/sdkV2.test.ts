// Interop: an official SDK v2 McpServer (@modelcontextprotocol/server, serveStdio), which
// speaks both eras: the client settles on 2026-07-28 by itself, and on 2025-11-25 when forced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { McpClient } from '../../src/client/mcpClient.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import { stdioClient } from './support.js';

const fixture = fileURLToPath(new URL('./fixtures/sdkV2Server.mjs', import.meta.url));
const text = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((c) => c.text ?? '').join('');

for (const era of ['stateless', 'stateful'] as const) {
  describe(`interop: SDK v2 McpServer over stdio (${era})`, () => {
    const open = (): Promise<McpClient> =>
      stdioClient(fixture, [], {
        ...(era === 'stateful' ? { era } : {}),
        handlers: { elicitation: () => ({ action: 'accept', content: { note: 'ok' } }) },
      });

    it('negotiates, lists, calls (with MRTR on 2026-07-28), reads and gets prompts', async () => {
      const client = await open();
      try {
        assert.equal(client.era, era);
        assert.equal(client.protocolVersion, era === 'stateless' ? '2026-07-28' : '2025-11-25');
        assert.equal(client.serverInfo?.name, 'sdk-v2-fixture');
        assert.deepEqual((await client.listTools()).map((t) => t.name).sort(), ['add', 'deploy']);
        assert.deepEqual((await client.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 });
        const deployed = await client.callTool('deploy', { env: 'prod' });
        // The omitted `confirm` was filled from the schema default and requestState came back
        // verbatim (2026: MRTR retry; 2025-11-25: the SDK bridges it to an elicitation request).
        assert.equal(text(deployed), 'deployed to prod (state state-for-prod)');
        assert.equal((await client.readResource('memo://greeting')).contents[0]?.uri, 'memo://greeting');
        assert.match(JSON.stringify((await client.getPrompt('review', { code: 'x' })).messages), /Please review: x/);
        await assert.rejects(client.request('no/such/method'), (e: unknown) => e instanceof JsonRpcError && e.code === -32601);
      } finally {
        await client.close();
      }
    });
  });
}

describe('interop: SDK v2 listen (stateless)', () => {
  it('opens a subscription and gets the acknowledgement', async () => {
    const client = await stdioClient(fixture, []);
    try {
      const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true });
      assert.equal(sub.granted.toolsListChanged, true);
      sub.close();
      assert.equal((await sub.ended).reason, 'aborted');
      await client.ping();
    } finally {
      await client.close();
    }
  });
});
