// Interop: OUR McpClient over LegacySseClientTransport against the official SDK v1's deprecated
// SSEServerTransport (the 2024-11-05 HTTP+SSE transport: GET /sse names the POST endpoint,
// every server message comes back on the stream), served on node:http in this process.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../../src/client/mcpClient.js';
import type { McpClientOptions } from '../../src/client/types.js';
import type { LoggingMessageParams } from '../../src/protocol/model/utilities.js';
import { LegacySseClientTransport } from '../../src/transport/http/legacy/legacySseClient.js';
import { isMcpError, McpErrorCode } from '../../src/util/errors.js';
import { buildSdkServer } from './fixtures/sdkV1Server.mjs';
import { answerEverything } from './support.js';

const text = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((c) => c.text ?? '').join('');

interface LegacyHost {
  readonly url: string;
  /** Open SSE sessions, by session id. */
  readonly sessions: Map<string, SSEServerTransport>;
  close(): Promise<void>;
}

/** Serves one SDK v1 McpServer per SSE connection: GET /sse, POST /messages?sessionId=…. */
async function serveLegacy(build: () => McpServer): Promise<LegacyHost> {
  const sessions = new Map<string, SSEServerTransport>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sessions.set(transport.sessionId, transport);
        transport.onclose = () => void sessions.delete(transport.sessionId);
        await build().connect(transport);
        return;
      }
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && url.pathname === '/messages' && transport !== undefined) {
        await transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end('unknown session');
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    sessions,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The shared fixture plus a tool that logs. */
function buildWithLogging(): McpServer {
  const server = buildSdkServer();
  server.registerTool('log', { description: 'Sends a log message', inputSchema: {} }, async () => {
    await server.sendLoggingMessage({ level: 'warning', logger: 'fixture', data: 'careful' });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  return server;
}

const handlers = { ...answerEverything, elicitation: () => ({ action: 'accept' as const, content: { name: 'Ada' } }) };

async function connect(host: LegacyHost, options: McpClientOptions = {}): Promise<McpClient> {
  const client = new McpClient({ name: 'switchboard-interop', version: '0.1.0' }, { defaultTimeoutMs: 10_000, handlers, ...options });
  await client.connect(new LegacySseClientTransport({ url: host.url }));
  return client;
}

describe('interop: our McpClient -> SDK v1 SSEServerTransport (2024-11-05 HTTP+SSE)', () => {
  let host: LegacyHost;
  let client: McpClient;
  const logs: LoggingMessageParams[] = [];
  before(async () => {
    host = await serveLegacy(buildWithLogging);
    client = await connect(host, { era: 'stateful', on: { logMessage: (p) => logs.push(p) } });
  });
  after(async () => {
    await client.close();
    await host.close();
  });

  it('initializes on the stateful era; the server settles on the version we offer', () => {
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(client.serverInfo?.name, 'sdk-v1-fixture');
    assert.equal(host.sessions.size, 1);
  });

  it('lists and calls tools', async () => {
    const names = (await client.listTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['add', 'ask', 'fail', 'log', 'roots', 'sample', 'slow']);
    const sum = await client.callTool('add', { a: 5, b: 3 });
    assert.deepEqual(sum.structuredContent, { sum: 8 });
    assert.equal((await client.callTool('fail', {})).isError, true);
  });

  it('receives progress and log notifications on the stream', async () => {
    const seen: number[] = [];
    await client.callTool('slow', { steps: 3 }, { onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2, 3]);
    await client.setLoggingLevel('info');
    assert.equal(text(await client.callTool('log', {})), 'logged');
    assert.deepEqual(logs, [{ level: 'warning', logger: 'fixture', data: 'careful' }]);
  });

  it('answers server->client requests (elicitation, sampling, roots) by POST', async () => {
    const answer = JSON.parse(text(await client.callTool('ask', {}))) as { action: string; content: Record<string, unknown> };
    assert.deepEqual(answer, { action: 'accept', content: { name: 'Ada', age: 30, ok: true } });
    assert.match(text(await client.callTool('sample', { prompt: 'hi' })), /sampled 1 message/);
    assert.deepEqual(JSON.parse(text(await client.callTool('roots', {}))), [{ uri: 'file:///tmp', name: 'tmp' }]);
    await client.ping();
  });
});

describe('interop: SDK v1 SSEServerTransport, era negotiation and close', () => {
  let host: LegacyHost;
  before(async () => {
    host = await serveLegacy(buildWithLogging);
  });
  after(async () => {
    await host.close();
  });

  it('the default probe (server/discover) falls back to initialize', async () => {
    const client = await connect(host);
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-11-25');
    await client.close();
  });

  it('close() ends the SSE session on the server', async () => {
    const client = await connect(host, { era: 'stateful' });
    assert.equal(host.sessions.size, 1);
    await client.close();
    const deadline = Date.now() + 2000;
    while (host.sessions.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(host.sessions.size, 0);
  });

  it('a server that only answers protocol version 2024-11-05 is refused with ERR_MCP_UNSUPPORTED_VERSION', async () => {
    const old = await serveLegacy(() => {
      const server = buildSdkServer();
      server.server.setRequestHandler(InitializeRequestSchema, () => ({
        protocolVersion: '2024-11-05',
        capabilities: { tools: {} },
        serverInfo: { name: 'old', version: '0.0.1' },
      }));
      return server;
    });
    try {
      const client = new McpClient({ name: 'switchboard-interop', version: '0.1.0' }, { era: 'stateful', defaultTimeoutMs: 10_000 });
      await assert.rejects(client.connect(new LegacySseClientTransport({ url: old.url })), (e) => isMcpError(e, McpErrorCode.UnsupportedVersion) && /"2024-11-05"/.test(e.message));
      assert.equal(client.connected, false);
      // connect() closed the transport, which ends the SSE session on the server.
      const deadline = Date.now() + 2000;
      while (old.sessions.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(old.sessions.size, 0);
    } finally {
      await old.close();
    }
  });
});
