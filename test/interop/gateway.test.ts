// E2E: the official SDK v2 and v1 clients connect to the real `switchboard gateway` over HTTP
// and over stdio and call tools of three downstream servers behind it: ours over stdio
// (`switchboard everything --stdio`), ours over HTTP (an in-process McpServer), and the real
// third-party @modelcontextprotocol/server-memory over stdio.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { everythingEntry, gatewayStdioParams, memoryEntry, serveHttp, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let config: GatewayConfig;
let weather: Awaited<ReturnType<typeof serveHttp>>;
let gateway: RunningGateway;

before(async () => {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.tool('forecast', { description: 'The forecast for a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }, (args) => `sunny in ${String(args['city'])}`);
  weather = await serveHttp(server);
  config = await writeConfig({}, {});
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    config.file,
    JSON.stringify({ mcpServers: { everything: everythingEntry(), weather: { url: weather.url, type: 'http' }, memory: memoryEntry(config.dir) }, switchboard: { namespacing: 'on-collision' } }),
  );
  gateway = await startGateway(config);
});

after(async () => {
  await gateway.stop();
  await weather.close();
  await config.remove();
});

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
const text = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('');

/** The same checks through any connected SDK client. */
async function exercise(client: { listTools(): Promise<{ tools: { name: string }[] }>; callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown> }): Promise<void> {
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const expected of ['echo', 'forecast', 'create_entities', 'read_graph']) assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
  assert.match(text(await client.callTool({ name: 'echo', arguments: { message: 'through the gateway' } })), /through the gateway/);
  assert.equal(text(await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } })), 'sunny in Lisbon');
  await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: `e${Math.random()}`, entityType: 'test', observations: ['seen'] }] } });
  assert.match(text(await client.callTool({ name: 'read_graph', arguments: {} })), /"entityType":\s*"test"/);
}

describe('e2e: SDK clients through the gateway to three downstream servers', () => {
  it('SDK v2 client over Streamable HTTP (2026-07-28)', async () => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new HttpV2(gateway.url, { requestInit: { headers: { authorization: `Bearer ${gateway.token}` } } }));
    assert.equal(client.getProtocolEra(), 'modern');
    await exercise(client);
    await client.close();
  });

  it('SDK v2 client over Streamable HTTP (2025-11-25 session)', async () => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new HttpV2(gateway.url, { requestInit: { headers: { authorization: `Bearer ${gateway.token}` } } }));
    await exercise(client);
    await client.close();
  });

  it('SDK v1 client over Streamable HTTP', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' });
    await client.connect(new HttpV1(gateway.url, { requestInit: { headers: { authorization: `Bearer ${gateway.token}` } } }));
    await exercise(client);
    await client.close();
  });

  it('SDK v2 client over stdio (the gateway as its child)', async () => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StdioV2(gatewayStdioParams(config)));
    await exercise(client);
    await client.close();
  });

  it('SDK v1 client over stdio (the gateway as its child)', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' });
    await client.connect(new StdioV1(gatewayStdioParams(config)));
    await exercise(client);
    await client.close();
  });

  it('SDK v1 client over Streamable HTTP: log messages of a call and resource updates come back through the gateway', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' });
    const logs: unknown[] = [];
    let updated: (uri: string) => void = () => undefined;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
    await client.connect(new HttpV1(gateway.url, { requestInit: { headers: { authorization: `Bearer ${gateway.token}` } } }));
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.deepEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    // The everything server (a 2026-07-28 server over stdio) changes this resource every few seconds.
    const arrived = new Promise<string>((resolve) => (updated = resolve));
    await client.subscribeResource({ uri: 'test://watched-resource' });
    assert.equal(await arrived, 'test://watched-resource');
    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    await client.close();
  });

  it('token passthrough and missing tokens: the gateway refuses a request without its bearer token (401)', async () => {
    const response = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal(response.status, 401);
    const wrong = await fetch(gateway.url, { method: 'POST', headers: { authorization: 'Bearer not-the-token-of-this-gateway-xxxxxxxxxxxxx', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal(wrong.status, 401);
  });

  it('/healthz and /readyz', async () => {
    const health = await fetch(new URL('/healthz', gateway.url));
    assert.equal(health.status, 200);
    // Without a token: the status only (server ids and errors describe the deployment).
    assert.deepEqual(await (await fetch(new URL('/readyz', gateway.url))).json(), { status: 'ready' });
    const ready = (await (await fetch(new URL('/readyz', gateway.url), { headers: { authorization: `Bearer ${gateway.token}` } })).json()) as { status: string; servers: { id: string; state: string }[] };
    assert.equal(ready.status, 'ready');
    assert.deepEqual(
      ready.servers.map((s) => `${s.id}:${s.state}`),
      ['everything:ready', 'weather:ready', 'memory:ready'],
    );
  });
});
