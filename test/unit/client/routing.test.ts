// Per-call handlers and the attribution of server→client requests to the call they belong
// to (stateful era): on Streamable HTTP by the POST stream a request arrived on, over stdio
// only when exactly one call is in flight. Against our McpServer, whose ctx.elicit sends real
// `elicitation/create` requests on 2025-11-25.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import { CallRegistry } from '../../../src/client/routing.js';
import type { ClientHandlers, InputContext } from '../../../src/client/types.js';
import { RELATED_REQUEST_ID } from '../../../src/jsonrpc/channel.js';
import type { ElicitParams } from '../../../src/protocol/model/elicitation.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { StdioClientTransport } from '../../../src/transport/stdio/client.js';
import type { Transport } from '../../../src/transport/types.js';
import { buildAskingServer } from './fixtures/askingApp.js';
import { CLIENT_INFO, connectServer } from './support.js';

const askingServer = fileURLToPath(new URL('./fixtures/askingServer.ts', import.meta.url));

interface Asked {
  readonly question: string;
  readonly context: InputContext;
}

/** Handlers that answer `answer` and record every question they were asked. */
function recording(answer: string): { readonly asked: Asked[]; readonly handlers: ClientHandlers } {
  const asked: Asked[] = [];
  return {
    asked,
    handlers: {
      elicitation: (params: ElicitParams, context: InputContext) => {
        asked.push({ question: params.message, context });
        return { action: 'accept', content: { answer } };
      },
    },
  };
}

function text(result: { content: readonly unknown[] }): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

async function overHttp(client: McpClient): Promise<() => Promise<void>> {
  const server = buildAskingServer(['2025-11-25']);
  const http = await listen(createStreamableHttpHandler(server));
  await client.connect(new StreamableHttpClientTransport({ url: `${http.url}mcp` }));
  return async () => {
    await client.close();
    await server.close();
    await http.close();
  };
}

async function overStdio(client: McpClient): Promise<() => Promise<void>> {
  const transport: Transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', askingServer], cwd: process.cwd(), stderr: 'ignore' });
  await client.connect(transport);
  return () => client.close();
}

/** Two concurrent `ask` calls (both in flight before either is asked), each with its own recording handlers. */
async function askTwiceAtOnce(client: McpClient) {
  const a = recording('a');
  const b = recording('b');
  const [resultA, resultB] = await Promise.all([
    client.callTool('ask', { question: 'A?', waitFor: 2 }, { handlers: a.handlers }),
    client.callTool('ask', { question: 'B?', waitFor: 2 }, { handlers: b.handlers }),
  ]);
  return { a, b, resultA, resultB };
}

/** Connects a client (with recording client-level handlers) `over` a transport, runs `body`, closes. */
async function withClient(
  over: (client: McpClient) => Promise<() => Promise<void>>,
  body: (client: McpClient, fallback: ReturnType<typeof recording>) => Promise<void>,
): Promise<void> {
  const fallback = recording('client');
  const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 10_000, handlers: fallback.handlers });
  const close = await over(client);
  try {
    assert.equal(client.era, 'stateful');
    await body(client, fallback);
  } finally {
    await close();
  }
}

describe('McpClient per-call handlers over Streamable HTTP (stateful, our server)', () => {
  it('answers each concurrent call\'s elicitation with that call\'s own handlers', async () => {
    await withClient(overHttp, async (client, fallback) => {
      const { a, b, resultA, resultB } = await askTwiceAtOnce(client);
      assert.equal(text(resultA), 'A? -> a');
      assert.equal(text(resultB), 'B? -> b');
      assert.deepEqual(a.asked.map((q) => q.question), ['A?']);
      assert.deepEqual(b.asked.map((q) => q.question), ['B?']);
      assert.equal(a.asked[0]?.context.via, 'request');
      assert.notEqual(a.asked[0]?.context.relatedRequestId, undefined);
      assert.notEqual(a.asked[0]?.context.relatedRequestId, b.asked[0]?.context.relatedRequestId);
      assert.deepEqual(fallback.asked, []);
    });
  });

  it('never answers a question on one call\'s POST stream with another concurrent call\'s handlers (cross-call answer confusion)', async () => {
    await withClient(overHttp, async (client, fallback) => {
      const own = recording('own');
      // One call has its own handlers, the other only the client's: neither may borrow.
      const [withOwn, withoutOwn] = await Promise.all([
        client.callTool('ask', { question: 'Mine?', waitFor: 2 }, { handlers: own.handlers }),
        client.callTool('ask', { question: 'Theirs?', waitFor: 2 }),
      ]);
      assert.equal(text(withOwn), 'Mine? -> own');
      assert.equal(text(withoutOwn), 'Theirs? -> client');
      assert.deepEqual(own.asked.map((q) => q.question), ['Mine?']);
      assert.deepEqual(fallback.asked.map((q) => q.question), ['Theirs?']);
    });
  });
});

describe('McpClient per-call handlers over stdio (stateful, our server)', () => {
  it('attributes a server request to the only call in flight', async () => {
    await withClient(overStdio, async (client, fallback) => {
      const own = recording('own');
      assert.equal(text(await client.callTool('ask', { question: 'Solo?' }, { handlers: own.handlers })), 'Solo? -> own');
      assert.deepEqual(own.asked.map((q) => q.question), ['Solo?']);
      assert.equal(typeof own.asked[0]?.context.relatedRequestId, 'number');
      assert.deepEqual(fallback.asked, []);
    });
  });

  it('never lets one call\'s handlers answer a question the server did not tie to it (two calls in flight: cross-call answer confusion)', async () => {
    await withClient(overStdio, async (client, fallback) => {
      const { a, b, resultA, resultB } = await askTwiceAtOnce(client);
      // stdio carries no relation and two calls were in flight: the client's handlers answer.
      assert.equal(text(resultA), 'A? -> client');
      assert.equal(text(resultB), 'B? -> client');
      assert.deepEqual(a.asked, []);
      assert.deepEqual(b.asked, []);
      assert.deepEqual(fallback.asked.map((q) => q.question).sort(), ['A?', 'B?']);
      for (const q of fallback.asked) assert.equal(q.context.relatedRequestId, undefined);
    });
  });
});

describe('McpClient per-call handlers on MRTR (stateless, our server)', () => {
  it('answers a call\'s input requests with its own handlers, naming the round\'s request', async () => {
    const fallback = recording('client');
    const { client, wire, close } = await connectServer(buildAskingServer(), { handlers: fallback.handlers });
    try {
      const own = recording('own');
      const [mine, theirs] = await Promise.all([
        client.callTool('ask', { question: 'Mine?' }, { handlers: own.handlers }),
        client.callTool('ask', { question: 'Theirs?' }),
      ]);
      assert.equal(text(mine), 'Mine? -> own');
      assert.equal(text(theirs), 'Theirs? -> client');
      assert.deepEqual(own.asked.map((q) => q.question), ['Mine?']);
      assert.deepEqual(fallback.asked.map((q) => q.question), ['Theirs?']);
      const firstRound = wire.requests('tools/call').find((r) => (r.params?.['arguments'] as { question?: string }).question === 'Mine?');
      assert.equal(own.asked[0]?.context.relatedRequestId, firstRound?.id);
    } finally {
      await close();
    }
  });
});

describe('client/routing: CallRegistry', () => {
  it('attributes by the named request, to none on an unrelated stream, and to the only call in flight otherwise', () => {
    const calls = new CallRegistry();
    const handlers: ClientHandlers = { roots: () => [] };
    const none = { relatedRequestId: undefined, handlers: undefined, onLog: undefined };
    assert.deepEqual(calls.attribute(undefined), none);
    calls.open(7, { handlers });
    assert.deepEqual(calls.attribute(undefined), { relatedRequestId: 7, handlers, onLog: undefined });
    assert.deepEqual(calls.attribute({ [RELATED_REQUEST_ID]: 7 }), { relatedRequestId: 7, handlers, onLog: undefined });
    assert.deepEqual(calls.attribute({ [RELATED_REQUEST_ID]: null }), none);
    calls.open(8, {});
    assert.deepEqual(calls.attribute(undefined), none);
    calls.close(7);
    assert.deepEqual(calls.attribute({ [RELATED_REQUEST_ID]: 7 }), { relatedRequestId: 7, handlers: undefined, onLog: undefined });
    assert.equal(calls.size, 1);
  });

  it('a call’s log sink is found the same way as its handlers', () => {
    const calls = new CallRegistry();
    const onLog = (): void => undefined;
    calls.open(3, { onLog });
    assert.equal(calls.attribute(undefined).onLog, onLog);
    assert.equal(calls.attribute({ [RELATED_REQUEST_ID]: 3 }).onLog, onLog);
    // A log message on the standalone stream belongs to no call.
    assert.equal(calls.attribute({ [RELATED_REQUEST_ID]: null }).onLog, undefined);
  });
});
