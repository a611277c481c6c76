// Interop: OUR client (McpClient + StreamableHttpClientTransport) drives the official SDK v2
// server (@modelcontextprotocol/server 2.4, Node glue from @modelcontextprotocol/node) over
// Streamable HTTP, in both of its serving modes (test/interop/fixtures/sdkV2HttpServer.ts):
// - stateless: createMcpHandler, where the client's server/discover probe settles 2026-07-28 and
//   elicitation travels as MRTR (input_required result, retried tools/call with requestState);
// - stateful: one transport per session, where the probe is refused (400, not initialized), the
//   client falls back to initialize on 2025-11-25 and elicitation is a real server-to-client
//   request answered by a POSTed response on the session.
// Both connect WITHOUT forcing an era. A last block forces the 2025 handshake against the
// stateless endpoint (the SDK's stateless legacy fallback).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import type { InputContext } from '../../src/client/types.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import type { ElicitParams } from '../../src/protocol/model/elicitation.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { startStateful, startStateless, type SdkV2Http } from './fixtures/sdkV2HttpServer.js';

const text = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((c) => c.text ?? '').join('');
const serverInfo = { name: 'sdk-v2-http-fixture', version: '2.0.0' };

interface Asked {
  readonly via: InputContext['via'];
  readonly key: string | undefined;
  readonly method: string | undefined;
  readonly protocolVersion: string;
  readonly message: string;
  readonly schemaKeys: string[];
}

async function connect(server: SdkV2Http, asked: Asked[], era?: 'stateful'): Promise<McpClient> {
  const client = new McpClient(
    { name: 'switchboard-interop', version: '0.1.0' },
    {
      defaultTimeoutMs: 10_000,
      probeTimeoutMs: 5000,
      ...(era === undefined ? {} : { era }),
      handlers: {
        elicitation: (params: ElicitParams, context: InputContext) => {
          const schema = 'requestedSchema' in params ? (params.requestedSchema as { properties?: Record<string, unknown> }) : {};
          asked.push({
            via: context.via,
            key: context.key,
            method: context.method,
            protocolVersion: context.protocolVersion,
            message: params.message,
            schemaKeys: Object.keys(schema.properties ?? {}).sort(),
          });
          // `confirm` is omitted on purpose: the client fills it from the schema default (true).
          return { action: 'accept', content: { note: 'ok' } };
        },
      },
    },
  );
  await client.connect(new StreamableHttpClientTransport({ url: server.url }));
  return client;
}

const modes = [
  { mode: 'stateless', start: startStateless, era: 'stateless', version: '2026-07-28', whoami: 'modern', via: 'mrtr' },
  { mode: 'stateful (sessions)', start: startStateful, era: 'stateful', version: '2025-11-25', whoami: 'session session', via: 'request' },
] as const;

for (const m of modes) {
  describe(`interop: our client -> SDK v2 server, Streamable HTTP, ${m.mode}`, () => {
    let server: SdkV2Http;
    let client: McpClient;
    const asked: Asked[] = [];
    /** JSON-RPC methods POSTed since `mark` (plain `result` for a POSTed response). */
    const postedSince = (mark: number): string[] => server.seen.slice(mark).flatMap((s) => (s.http === 'POST' ? s.rpc : []));

    before(async () => {
      server = await m.start();
      client = await connect(server, asked);
    });
    after(async () => {
      await client?.close();
      await server?.close();
    });

    it(`negotiates ${m.version} without being told the era`, () => {
      assert.equal(client.era, m.era);
      assert.equal(client.protocolVersion, m.version);
      assert.deepEqual(client.serverInfo, serverInfo);
      const caps = client.serverCapabilities ?? {};
      assert.ok(caps['tools'] !== undefined && caps['resources'] !== undefined && caps['prompts'] !== undefined, JSON.stringify(caps));
      // The probe always goes first, carrying the 2026 header.
      assert.deepEqual(server.seen[0], { http: 'POST', version: '2026-07-28', rpc: ['server/discover'] });
      if (m.era === 'stateless') {
        // Nothing but stateless POSTs, every one stamped 2026-07-28; no session was ever made.
        assert.ok(server.seen.every((s) => s.http === 'POST' && s.version === '2026-07-28'), JSON.stringify(server.seen));
        assert.ok(!postedSince(0).includes('initialize'));
      } else {
        // Refused probe -> initialize (no version header yet) -> initialized on the new session.
        assert.deepEqual(server.seen[1], { http: 'POST', version: undefined, rpc: ['initialize'] });
        assert.deepEqual(server.seen[2], { http: 'POST', version: '2025-11-25', rpc: ['notifications/initialized'] });
        assert.equal(server.sessions(), 1);
      }
    });

    it('lists tools (with schemas), resources, templates and prompts', async () => {
      const tools = await client.listTools({ fresh: false });
      assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'deploy', 'slow', 'whoami']);
      const add = tools.find((t) => t.name === 'add');
      assert.equal(add?.description, 'Adds two numbers');
      assert.deepEqual(Object.keys((add?.inputSchema as { properties?: object }).properties ?? {}).sort(), ['a', 'b']);
      assert.deepEqual((add?.inputSchema as { required?: string[] }).required?.slice().sort(), ['a', 'b']);
      assert.deepEqual(Object.keys((add?.outputSchema as { properties?: object } | undefined)?.properties ?? {}), ['sum']);
      assert.deepEqual(
        (await client.listResources({ fresh: false })).map((r) => ({ uri: r.uri, name: r.name, mimeType: r.mimeType })),
        [{ uri: 'memo://greeting', name: 'greeting', mimeType: 'text/plain' }],
      );
      assert.deepEqual(
        (await client.listResourceTemplates({ fresh: false })).map((t) => ({ uriTemplate: t.uriTemplate, name: t.name })),
        [{ uriTemplate: 'memo://items/{id}', name: 'item' }],
      );
      const prompts = await client.listPrompts({ fresh: false });
      assert.deepEqual(
        prompts.map((p) => ({ name: p.name, description: p.description, arguments: p.arguments })),
        [{ name: 'review', description: 'Review code', arguments: [{ name: 'code', required: true }] }],
      );
    });

    it('calls add (structured output) and whoami (served in the expected era)', async () => {
      const sum = await client.callTool('add', { a: 5, b: 3 });
      assert.deepEqual(sum.structuredContent, { sum: 8 });
      assert.equal(text(sum), '8');
      assert.notEqual(sum.isError, true);
      assert.equal(text(await client.callTool('whoami', {})), m.whoami);
      const bad = await client.callTool('add', { a: 'x', b: 1 }).then(
        (r) => r.isError === true,
        (e: unknown) => e instanceof JsonRpcError,
      );
      assert.equal(bad, true, 'invalid arguments are refused');
    });

    it(`calls deploy: the elicitation is answered by our handler (${m.via})`, async () => {
      asked.length = 0;
      const mark = server.seen.length;
      const deployed = await client.callTool('deploy', { env: 'prod' });
      assert.notEqual(deployed.isError, true, text(deployed));
      // confirm=true came from the schema default our client filled in; note from the handler;
      // requestState came back verbatim (MRTR retry, or the SDK's 2025 bridge).
      assert.equal(text(deployed), 'deployed to prod (state state-for-prod, note ok)');
      assert.equal(asked.length, 1, JSON.stringify(asked));
      const [question] = asked;
      assert.equal(question?.via, m.via);
      assert.equal(question?.message, 'Deploy to prod?');
      assert.deepEqual(question?.schemaKeys, ['confirm', 'note']);
      assert.equal(question?.protocolVersion, m.version);
      if (m.era === 'stateless') {
        assert.equal(question?.key, 'confirm');
        assert.equal(question?.method, 'tools/call');
        // Two rounds: the first answered input_required, the retry carried inputResponses.
        assert.deepEqual(postedSince(mark), ['tools/call', 'tools/call']);
      } else {
        // One call; the elicitation/create request came on its stream, our answer was POSTed.
        assert.deepEqual(postedSince(mark), ['tools/call', 'result']);
      }
    });

    it('receives progress from slow, in order, with totals and messages', async () => {
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool('slow', { steps: 3 }, { onProgress: (p) => seen.push({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message === undefined ? {} : { message: p.message }) }) });
      assert.equal(text(result), 'done 3 (token present)');
      assert.deepEqual(seen, [
        { progress: 1, total: 3, message: 'step 1' },
        { progress: 2, total: 3, message: 'step 2' },
        { progress: 3, total: 3, message: 'step 3' },
      ]);
    });

    it('reads the resource and a template instance, gets the prompt', async () => {
      const greeting = await client.readResource('memo://greeting', { fresh: false });
      assert.deepEqual(greeting.contents, [{ uri: 'memo://greeting', mimeType: 'text/plain', text: 'hello from SDK v2' }]);
      const item = await client.readResource('memo://items/7', { fresh: false });
      assert.deepEqual(item.contents, [{ uri: 'memo://items/7', text: 'item 7' }]);
      const prompt = await client.getPrompt('review', { code: 'x = 1' });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Please review: x = 1' } }]);
    });

    it('surfaces errors: unknown tool, unknown resource, unknown method', async () => {
      const unknownTool = await client.callTool('nope', {}).then(
        (r) => r.isError === true && /nope/.test(text(r)),
        (e: unknown) => e instanceof JsonRpcError && /nope/.test(e.message),
      );
      assert.equal(unknownTool, true);
      await assert.rejects(client.readResource('memo://missing', { fresh: false }), (e: unknown) => e instanceof JsonRpcError);
      await assert.rejects(client.request('no/such/method'), (e: unknown) => e instanceof JsonRpcError && e.code === -32601);
      await client.ping();
    });

    if (m.era === 'stateful') {
      it('closing the client DELETEs the session', async () => {
        await client.close();
        assert.equal(server.seen.at(-1)?.http, 'DELETE');
        assert.equal(server.sessions(), 0);
      });
    }
  });
}

describe('interop: our client forced to 2025-11-25 -> SDK v2 createMcpHandler (stateless legacy fallback)', () => {
  let server: SdkV2Http;
  let client: McpClient;
  const asked: Asked[] = [];
  before(async () => {
    server = await startStateless();
    client = await connect(server, asked, 'stateful');
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });

  it('initializes, calls, streams progress, reads and gets prompts through per-request legacy instances', async () => {
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(client.serverInfo, serverInfo);
    assert.equal(server.seen[0]?.rpc[0], 'initialize');
    assert.equal(text(await client.callTool('whoami', {})), 'legacy');
    assert.deepEqual((await client.callTool('add', { a: 2, b: 40 })).structuredContent, { sum: 42 });
    const seen: number[] = [];
    await client.callTool('slow', { steps: 2 }, { onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2]);
    assert.deepEqual((await client.readResource('memo://greeting')).contents, [{ uri: 'memo://greeting', mimeType: 'text/plain', text: 'hello from SDK v2' }]);
    assert.match(JSON.stringify((await client.getPrompt('review', { code: 'y' })).messages), /Please review: y/);
  });

  it('deploy cannot elicit there (SDK: per-request legacy serving has no server-to-client requests)', async () => {
    const result = await client.callTool('deploy', { env: 'prod' });
    assert.equal(result.isError, true);
    assert.match(text(result), /per-request legacy serving cannot receive server-to-client requests/);
    assert.equal(asked.length, 0);
  });
});
