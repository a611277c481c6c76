import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../../../src/adapters/nodeHttp.js';
import { createEverythingServer } from '../../../../../src/demo/everything/server.js';
import { Connection } from '../../../../../src/jsonrpc/connection.js';
import { JsonRpcError } from '../../../../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport, type FetchLike } from '../../../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';

const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'it', version: '1' } };

let server: ListeningServer;
let url: string;

before(async () => {
  server = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp', sseKeepAliveMs: 0 }));
  url = new URL('/mcp', server.url).toString();
});
after(() => server.close());

/** A fetch that records the headers of each POST and can drop some. */
function recordingFetch(drop: readonly string[] = []): { fetch: FetchLike; posts: Record<string, string>[] } {
  const posts: Record<string, string>[] = [];
  return {
    posts,
    fetch: (target, init) => {
      const headers = { ...(init.headers as Record<string, string>) };
      for (const name of drop) delete headers[name];
      if (init.method === 'POST') posts.push(headers);
      return fetch(target, { ...init, headers });
    },
  };
}

describe('http client · against the everything server (2026-07-28)', () => {
  it('tools/list, then tools/call test_x_mcp_header (Mcp-Param-Region) and echo', async () => {
    const rec = recordingFetch();
    const connection = new Connection(new StreamableHttpClientTransport({ url, fetch: rec.fetch }));
    await connection.start();
    const list = await connection.request('tools/list', { _meta: meta });
    const names = (list['tools'] as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes('test_x_mcp_header') && names.includes('echo'));

    const region = await connection.request('tools/call', { name: 'test_x_mcp_header', arguments: { region: 'eu-west-1', note: 'hi' }, _meta: meta });
    assert.deepEqual(region['content'], [{ type: 'text', text: 'Region: eu-west-1; note: hi' }]);
    assert.equal(rec.posts[1]!['mcp-param-region'], 'eu-west-1');
    assert.equal(rec.posts[1]!['mcp-name'], 'test_x_mcp_header');

    const unicode = await connection.request('tools/call', { name: 'test_x_mcp_header', arguments: { region: ' zürich ' }, _meta: meta });
    assert.deepEqual(unicode['content'], [{ type: 'text', text: 'Region:  zürich ' }]);
    assert.match(rec.posts[2]!['mcp-param-region'] ?? '', /^=\?base64\?.*\?=$/);

    const echo = await connection.request('tools/call', { name: 'echo', arguments: { message: 'hello' }, _meta: meta });
    assert.deepEqual(echo['content'], [{ type: 'text', text: 'hello' }]);
    assert.equal(rec.posts[3]!['mcp-method'], 'tools/call');
    assert.equal(rec.posts[3]!['mcp-protocol-version'], V);
    await connection.close();
  });

  it('the server rejects the call when Mcp-Param-Region is missing (-32020, delivered as an error response)', async () => {
    const rec = recordingFetch(['mcp-param-region']);
    const connection = new Connection(new StreamableHttpClientTransport({ url, fetch: rec.fetch }));
    await connection.start();
    await connection.request('tools/list', { _meta: meta });
    await assert.rejects(connection.request('tools/call', { name: 'test_x_mcp_header', arguments: { region: 'x' }, _meta: meta }), (e) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, -32020);
      return true;
    });
    await connection.close();
  });

  it('an unsupported version comes back as -32022 with the supported list', async () => {
    const connection = new Connection(new StreamableHttpClientTransport({ url }));
    await connection.start();
    await assert.rejects(connection.request('tools/list', { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } }), (e) => {
      assert.ok(e instanceof JsonRpcError);
      assert.equal(e.code, -32022);
      return true;
    });
    await connection.close();
  });
});

describe('http client · against the everything server (2025-11-25 session)', () => {
  it('initialize, initialized, tools/call echo, close (DELETE ends the session)', async () => {
    const transport = new StreamableHttpClientTransport({ url });
    const connection = new Connection(transport);
    await connection.start();
    const init = await connection.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'it', version: '1' } });
    assert.equal(init['protocolVersion'], '2025-11-25');
    await connection.notify('notifications/initialized');
    assert.ok(transport.sessionId !== undefined);
    const echo = await connection.request('tools/call', { name: 'echo', arguments: { message: 'legacy' } });
    assert.deepEqual(echo['content'], [{ type: 'text', text: 'legacy' }]);
    await connection.close();
  });
});
