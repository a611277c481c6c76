// The client's lifecycle: the closed event and promise with their cause (client close, the
// stdio server process exiting, an HTTP session the server forgot), reconnect() from a
// transport factory or a given transport, and notifyRootsListChanged on both eras.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { ClientClosedEvent } from '../../../src/client/types.js';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { StdioClientTransport } from '../../../src/transport/stdio/client.js';
import { McpError, McpErrorCode } from '../../../src/util/errors.js';
import { buildAskingServer } from './fixtures/askingApp.js';
import { CLIENT_INFO, connectEverything, initializeResult, memoryLogger, scriptedPeer, WireTap } from './support.js';

const dyingServer = fileURLToPath(new URL('./fixtures/dyingServer.mjs', import.meta.url));

function recordClosed(): { readonly events: ClientClosedEvent[]; readonly on: { closed(event: ClientClosedEvent): void } } {
  const events: ClientClosedEvent[] = [];
  return { events, on: { closed: (event) => void events.push(event) } };
}

describe('McpClient lifecycle: closed', () => {
  it('reports a close by the client once, without a cause', async () => {
    const seen = recordClosed();
    const { client, close } = await connectEverything({ on: seen.on });
    const closed = client.closed;
    await close();
    assert.deepEqual(await closed, { byClient: true });
    assert.deepEqual(seen.events, [{ byClient: true }]);
    await client.close();
    assert.equal(seen.events.length, 1, 'a second close reports nothing');
  });

  it('reports the stdio server process exiting, with its exit code', async () => {
    const seen = recordClosed();
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000, on: seen.on });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [dyingServer], stderr: 'ignore' }));
    await assert.rejects(client.callTool('die'));
    const event = await client.closed;
    assert.equal(event.byClient, false);
    assert.ok(event.cause instanceof McpError && event.cause.code === McpErrorCode.ConnectionClosed);
    assert.deepEqual((event.cause as McpError).cause, { code: 3, signal: null });
    assert.deepEqual(seen.events, [event]);
    assert.equal(client.connected, false);
  });

  it('reports an HTTP session the server forgot (404) as the end of a stateful connection', async () => {
    const server = buildAskingServer(['2025-11-25']);
    const http = await listen(createStreamableHttpHandler(server));
    let forget = false;
    const forgetful = (url: string, init: RequestInit): Promise<Response> =>
      forget && new Headers(init.headers).has('mcp-session-id') ? Promise.resolve(new Response('', { status: 404 })) : fetch(url, init);
    const seen = recordClosed();
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000, on: seen.on });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: `${http.url}mcp`, fetch: forgetful }));
      assert.equal(client.era, 'stateful');
      forget = true;
      await assert.rejects(client.listTools(), (e: unknown) => e instanceof McpError && (e.cause as McpError | undefined)?.code === McpErrorCode.SessionExpired);
      const event = await client.closed;
      assert.equal(event.byClient, false);
      assert.ok(event.cause instanceof McpError && event.cause.code === McpErrorCode.SessionExpired);
      assert.equal(seen.events.length, 1);
    } finally {
      await client.close();
      await server.close();
      await http.close();
    }
  });
});

describe('McpClient lifecycle: reconnect', () => {
  it('re-negotiates on a fresh transport from the factory after the server went away', async () => {
    const server = buildAskingServer();
    const wires: WireTap[] = [];
    const factory = async () => {
      const [clientSide, serverSide] = createInMemoryPair();
      await server.connect(serverSide);
      const wire = new WireTap(clientSide);
      wires.push(wire);
      return wire;
    };
    const seen = recordClosed();
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000, on: seen.on });
    try {
      await client.connect(factory);
      assert.ok((await client.listTools()).some((t) => t.name === 'ask'));
      const firstClosed = client.closed;
      // The server side hangs up.
      await server.close();
      assert.deepEqual(await firstClosed, { byClient: false });
      await assert.rejects(client.listTools(), (e: unknown) => e instanceof McpError && e.code === McpErrorCode.ConnectionClosed);
      await client.reconnect();
      assert.equal(client.connected, true);
      assert.equal(wires.length, 2);
      assert.equal(wires[1]?.requests('server/discover').length, 1, 'the new transport negotiated afresh');
      assert.ok((await client.listTools()).some((t) => t.name === 'ask'));
      assert.notEqual(client.closed, firstClosed, 'the new connection has its own closed promise');
      assert.deepEqual(seen.events, [{ byClient: false }]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('replaces an open connection with the transport given, reporting the old one closed by the client', async () => {
    const seen = recordClosed();
    const { client, server, close } = await connectEverything({ on: seen.on });
    try {
      const [clientSide, serverSide] = createInMemoryPair();
      await server.connect(serverSide);
      await client.reconnect(clientSide);
      assert.deepEqual(seen.events, [{ byClient: true }]);
      assert.ok((await client.listTools()).length > 0);
    } finally {
      await close();
    }
  });

  it('refuses reconnect() without a transport when connect got none from a factory', async () => {
    const { client, close } = await connectEverything();
    try {
      await assert.rejects(client.reconnect(), (e: unknown) => e instanceof McpError && e.code === McpErrorCode.InvalidArgument);
      assert.equal(client.connected, true, 'the refused reconnect left the connection alone');
    } finally {
      await close();
    }
  });
});

describe('McpClient lifecycle: notifyRootsListChanged', () => {
  it('sends notifications/roots/list_changed to a stateful server', async () => {
    const received: JsonRpcNotification[] = [];
    const { transport } = await scriptedPeer(
      (request) => {
        if (request.method === 'initialize') return initializeResult();
        throw new Error(`unexpected ${request.method}`);
      },
      (n) => void received.push(n),
    );
    const client = new McpClient(CLIENT_INFO, { era: 'stateful', capabilities: { roots: { listChanged: true } } });
    await client.connect(transport);
    await client.notifyRootsListChanged();
    await client.close();
    assert.ok(received.some((n) => n.method === 'notifications/roots/list_changed'));
  });

  it('sends nothing on 2026-07-28, where the notification does not exist, and says so at debug level', async () => {
    const logger = memoryLogger();
    const { client, wire, close } = await connectEverything({ logger });
    try {
      assert.equal(client.era, 'stateless');
      await client.notifyRootsListChanged();
      assert.equal(wire.sent.filter((m) => 'method' in m && m.method === 'notifications/roots/list_changed').length, 0);
      assert.ok(logger.lines.some((l) => l.level === 'debug' && l.message.includes('roots/list_changed')));
    } finally {
      await close();
    }
  });
});
