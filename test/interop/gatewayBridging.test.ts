// Era bridging through the real gateway, both ways, with an elicitation round trip and progress:
// - an SDK v1 client (stateful 2025-11-25) through the gateway to a server that speaks ONLY
//   2026-07-28 (its questions arrive as MRTR input requests; the v1 client gets real
//   elicitation/create requests);
// - our client on the stateless era through the gateway to an SDK v1 server (stateful only:
//   its elicitation/create requests become MRTR rounds for our client).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { serveHttp, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const sdkV1Server = fileURLToPath(new URL('./fixtures/sdkV1Server.mjs', import.meta.url));

let config: GatewayConfig;
let modern: Awaited<ReturnType<typeof serveHttp>>;
let gateway: RunningGateway;

before(async () => {
  const server = new McpServer({ name: 'modern-only', version: '1.0.0' }, { versions: ['2026-07-28'] });
  server.tool('register', { description: 'Asks for a name, reports progress' }, async (_args, ctx) => {
    await ctx.progress(1, 2, 'asking');
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    await ctx.progress(2, 2, 'done');
    return answer.action === 'accept' ? `registered ${String(answer.content?.['name'])}` : `not registered (${answer.action})`;
  });
  modern = await serveHttp(server);
  config = await writeConfig(
    { modern: { url: modern.url, type: 'http' }, legacy: { command: process.execPath, args: [sdkV1Server] } },
    { namespacing: 'always' },
  );
  gateway = await startGateway(config);
});

after(async () => {
  await gateway.stop();
  await modern.close();
  await config.remove();
});

const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

describe('era bridging through the gateway', () => {
  it('SDK v1 client (2025-11-25) -> gateway -> 2026-07-28-only server: elicitation as a real request, progress relayed', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const progress: number[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params.progress));
    await client.connect(new HttpV1(gateway.url, { requestInit: { headers: { authorization: `Bearer ${gateway.token}` } } }));
    const result = await client.callTool({ name: 'modern__register', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    assert.equal(text(result), 'registered Ada');
    assert.deepEqual(asked, ['Your name?']);
    assert.ok(progress.includes(2), `progress relayed: ${progress.join(',')}`);
    await client.close();
  });

  it('our stateless client -> gateway -> SDK v1 (stateful-only) server: its elicitation becomes an MRTR round, progress relayed', async () => {
    const asked: { via: string; message: string }[] = [];
    const client = new McpClient(
      { name: 'stateless', version: '1' },
      {
        era: 'stateless',
        handlers: {
          elicitation: (params, context) => {
            asked.push({ via: context.via, message: params.message });
            return { action: 'accept', content: { name: 'Grace', age: 36, ok: true } };
          },
        },
      },
    );
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
    assert.equal(client.era, 'stateless');
    const answer = await client.callTool('legacy__ask', {});
    assert.match(text(answer), /"action":"accept".*"name":"Grace"/);
    assert.deepEqual(asked, [{ via: 'mrtr', message: 'Tell me about you' }]);
    const progress: number[] = [];
    const slow = await client.callTool('legacy__slow', { steps: 3 }, { onProgress: (p) => void progress.push(p.progress) });
    assert.equal(text(slow), 'done');
    assert.deepEqual(progress, [1, 2, 3]);
    await client.close();
  });

  it('a declined elicitation travels back the same way', async () => {
    const client = new McpClient({ name: 'stateless', version: '1' }, { era: 'stateless', handlers: { elicitation: () => ({ action: 'decline' }) } });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
    const answer = await client.callTool('modern__register', {});
    assert.equal(text(answer), 'not registered (decline)');
    await client.close();
  });
});
