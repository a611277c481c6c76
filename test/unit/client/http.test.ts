// The client over Streamable HTTP against our own server: the modern probe, per-request
// `_meta`, MRTR, x-mcp-header tools and listen; the legacy fallback with sessions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { CLIENT_INFO } from './support.js';

async function serve() {
  const server = createEverythingServer({ watchIntervalMs: 0 });
  const handler = createStreamableHttpHandler(server);
  const http = await listen(handler);
  const headers: Record<string, string>[] = [];
  const recordingFetch = (url: string, init: RequestInit): Promise<Response> => {
    const seen: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (seen[key] = value));
    headers.push(seen);
    return fetch(url, init);
  };
  return {
    url: `${http.url}mcp`,
    headers,
    recordingFetch,
    close: async () => {
      await server.close();
      await http.close();
    },
  };
}

describe('McpClient over Streamable HTTP (our server)', () => {
  it('-32021 from the server: the error names the missing client capability (sampling)', async () => {
    const http = await serve();
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000 });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: http.url }));
      await assert.rejects(client.callTool('test_missing_capability', {}), (error: unknown) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32021);
        assert.equal(error.message, 'The server needs the client capability sampling (declare it with a handler)');
        assert.deepEqual(error.data, { requiredCapabilities: { sampling: {} } });
        return true;
      });
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('runs the stateless era: probe, headers, MRTR, x-mcp-header and listen', async () => {
    const http = await serve();
    const client = new McpClient(CLIENT_INFO, {
      defaultTimeoutMs: 5000,
      handlers: { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: http.url, fetch: http.recordingFetch }));
      assert.equal(client.era, 'stateless');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.ok((await client.listTools()).some((t) => t.name === 'test_x_mcp_header'));
      assert.match(JSON.stringify((await client.callTool('test_x_mcp_header', { region: 'us-west1' })).content), /us-west1/);
      const posted = http.headers.find((h) => h['mcp-method'] === 'tools/call');
      assert.equal(posted?.['mcp-protocol-version'], '2026-07-28');
      assert.equal(posted?.['mcp-param-region'], 'us-west1');
      assert.deepEqual((await client.callTool('test_input_required_result_elicitation')).content, [{ type: 'text', text: 'Hello, Ada!' }]);
      const sub = await client.listen({ toolsListChanged: true });
      assert.deepEqual(sub.granted, { toolsListChanged: true });
      sub.close();
      assert.equal((await sub.ended).reason, 'aborted');
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('runs the stateful era when forced (session, legacy requests)', async () => {
    const http = await serve();
    const client = new McpClient(CLIENT_INFO, { era: 'stateful', defaultTimeoutMs: 5000, handlers: { elicitation: () => ({ action: 'accept', content: { name: 'Bob' } }) } });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: http.url, fetch: http.recordingFetch }));
      assert.equal(client.era, 'stateful');
      assert.deepEqual((await client.callTool('echo', { message: 'hi' })).content, [{ type: 'text', text: 'hi' }]);
      assert.deepEqual((await client.callTool('test_input_required_result_elicitation')).content, [{ type: 'text', text: 'Hello, Bob!' }]);
      assert.ok(http.headers.some((h) => typeof h['mcp-session-id'] === 'string'));
    } finally {
      await client.close();
      await http.close();
    }
  });
});
