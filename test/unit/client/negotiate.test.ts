import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { McpError } from '../../../src/util/errors.js';
import { CLIENT_INFO, connectEverything, initializeResult, scriptedPeer } from './support.js';

const DISCOVER_OK = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'public',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '9' } },
};

describe('McpClient negotiation', () => {
  it('settles on the stateless era when server/discover answers', async () => {
    const { client, wire, close } = await connectEverything();
    try {
      assert.equal(client.era, 'stateless');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.equal(client.serverInfo?.name, 'switchboard-everything');
      assert.ok(client.serverCapabilities?.['tools']);
      assert.match(client.instructions ?? '', /everything/);
      const [discover] = wire.requests('server/discover');
      const meta = discover?.params?.['_meta'] as Record<string, unknown>;
      assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
      assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], CLIENT_INFO);
      assert.equal(typeof meta['io.modelcontextprotocol/clientCapabilities'], 'object');
      assert.equal(wire.requests('initialize').length, 0);
    } finally {
      await close();
    }
  });

  it('falls back to initialize against a stateful-only server, without _meta on later requests', async () => {
    const { client, wire, close } = await connectEverything({}, ['2025-11-25']);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.equal(client.serverInfo?.name, 'restricted');
      assert.ok(wire.sent.some((m) => 'method' in m && m.method === 'notifications/initialized' && !('id' in m)));
      await client.listTools();
      const [list] = wire.requests('tools/list');
      assert.equal(list?.params?.['_meta'], undefined);
      const [init] = wire.requests('initialize');
      assert.equal(init?.params?.['protocolVersion'], '2025-11-25');
      assert.equal(init?.params?.['_meta'], undefined);
    } finally {
      await close();
    }
  });

  it('stays modern on -32022 and retries with data.supported', async () => {
    let calls = 0;
    const { transport } = await scriptedPeer(() => {
      calls++;
      if (calls === 1) throw new JsonRpcError(-32022, 'Unsupported protocol version', { supported: ['2026-07-28'], requested: 'x' });
      return DISCOVER_OK;
    });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    assert.equal(client.era, 'stateless');
    assert.equal(client.serverInfo?.name, 'scripted');
    assert.equal(calls, 2);
    assert.equal(transport.requests('initialize').length, 0);
    const ids = transport.requests('server/discover').map((r) => r.id);
    assert.notEqual(ids[0], ids[1]);
    await client.close();
  });

  it('fails with ERR_MCP_UNSUPPORTED_VERSION when -32022 lists nothing we speak', async () => {
    const { transport } = await scriptedPeer(() => {
      throw new JsonRpcError(-32022, 'Unsupported protocol version', { supported: ['2099-01-01'], requested: '2026-07-28' });
    });
    const client = new McpClient(CLIENT_INFO);
    await assert.rejects(client.connect(transport), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED_VERSION');
    assert.equal(transport.requests('initialize').length, 0);
  });

  it('stays modern on -32021 / -32020', async () => {
    for (const code of [-32021, -32020]) {
      const { transport } = await scriptedPeer((request) => {
        if (request.method === 'server/discover') throw new JsonRpcError(code, 'modern error');
        return { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' };
      });
      const client = new McpClient(CLIENT_INFO);
      await client.connect(transport);
      assert.equal(client.era, 'stateless', String(code));
      assert.deepEqual(await client.listTools(), []);
      await client.close();
    }
  });

  for (const [label, fail] of [
    ['-32601', () => JsonRpcError.methodNotFound('server/discover')],
    ['-32602', () => JsonRpcError.invalidParams('no')],
    ['-32000 "not initialized"', () => new JsonRpcError(-32000, 'Server not initialized')],
  ] as const) {
    it(`falls back to initialize when discover answers ${label}`, async () => {
      const { transport } = await scriptedPeer((request) => {
        if (request.method === 'server/discover') throw fail();
        if (request.method === 'initialize') return initializeResult();
        return {};
      });
      const client = new McpClient(CLIENT_INFO);
      await client.connect(transport);
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.ok(transport.sent.some((m) => 'method' in m && m.method === 'notifications/initialized'));
      await client.close();
    });
  }

  it('falls back to initialize when the probe times out', async () => {
    const { transport } = await scriptedPeer(async (request) => {
      if (request.method === 'server/discover') return new Promise<Record<string, unknown>>(() => undefined);
      if (request.method === 'initialize') return initializeResult('2025-06-18');
      return {};
    });
    const client = new McpClient(CLIENT_INFO, { probeTimeoutMs: 50 });
    const started = Date.now();
    await client.connect(transport);
    assert.ok(Date.now() - started < 2000);
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-06-18');
    // The abandoned probe is cancelled.
    assert.ok(transport.sent.some((m) => 'method' in m && m.method === 'notifications/cancelled'));
    await client.close();
  });

  it('refuses an initialize answer with a version it does not speak, and closes', async () => {
    const { transport, peer } = await scriptedPeer((request) => {
      if (request.method === 'server/discover') throw JsonRpcError.methodNotFound('server/discover');
      return initializeResult('2024-11-05');
    });
    const client = new McpClient(CLIENT_INFO);
    await assert.rejects(client.connect(transport), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED_VERSION');
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(peer.closed, true);
  });

  it('honours a forced era', async () => {
    const legacy = await connectEverything({ era: 'stateful' });
    assert.equal(legacy.client.era, 'stateful');
    assert.equal(legacy.wire.requests('server/discover').length, 0);
    await legacy.close();
    const modern = await connectEverything({ era: 'stateless' });
    assert.equal(modern.client.era, 'stateless');
    await modern.close();
  });

  it('treats HTTP 400/404/405 without a modern body as legacy, other statuses as failures', async () => {
    for (const status of [400, 404, 405, 500]) {
      const { transport } = await scriptedPeer((request) => (request.method === 'initialize' ? initializeResult() : {}));
      const failing = {
        start: (sink: Parameters<typeof transport.start>[0]) => transport.start(sink),
        close: () => transport.close(),
        send: (message: Parameters<typeof transport.send>[0], options?: Parameters<typeof transport.send>[1]) => {
          if (!Array.isArray(message) && 'method' in (message as object) && (message as { method: string }).method === 'server/discover') {
            return Promise.reject(new McpError('ERR_MCP_HTTP_STATUS', `HTTP ${status}`, { cause: { status, body: '' } }));
          }
          return transport.send(message, options);
        },
      };
      const client = new McpClient(CLIENT_INFO);
      if (status === 500) {
        await assert.rejects(client.connect(failing), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_SEND_FAILED');
      } else {
        await client.connect(failing);
        assert.equal(client.era, 'stateful', String(status));
        await client.close();
      }
    }
  });

  it('rejects calls before connect with ERR_MCP_NOT_CONNECTED', async () => {
    const client = new McpClient(CLIENT_INFO);
    await assert.rejects(client.listTools(), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_NOT_CONNECTED');
  });
});
