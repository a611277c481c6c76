import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection } from '../../../src/jsonrpc/connection.js';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { ServerSession } from '../../../src/server/session.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

async function legacyClient(server: McpServer, version: string, onRequest: (method: string, params: Record<string, unknown>) => Record<string, unknown>) {
  const [clientSide, serverSide] = createInMemoryPair();
  await server.connect(serverSide);
  const notifications: JsonRpcNotification[] = [];
  const conn = new Connection(clientSide, {
    onRequest: (req) => onRequest(req.method, req.params ?? {}),
    onNotification: (n) => notifications.push(n),
  });
  await conn.start();
  await conn.request('initialize', { protocolVersion: version, capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true } }, clientInfo: { name: 't', version: '1' } });
  await conn.notify('notifications/initialized');
  return { conn, notifications };
}

describe('stateful sessions: URL elicitation and roots changes', () => {
  it('a shared handler asking URL-mode elicitation gets an elicitationId minted on 2025-11-25, and can signal completion', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    let kept: ServerSession | undefined;
    server.tool('connect_account', {}, async (_a, ctx) => {
      kept = ctx.session;
      const r = await ctx.elicit({ mode: 'url', message: 'Sign in to the provider', url: 'https://provider.example.com/authorize?x=1' } as never);
      return r.action;
    });
    const asked: Record<string, unknown>[] = [];
    const { conn, notifications } = await legacyClient(server, '2025-11-25', (method, params) => {
      asked.push({ method, ...params });
      return { action: 'accept' };
    });
    try {
      const result = (await conn.request('tools/call', { name: 'connect_account', arguments: {} })) as { content: { text: string }[] };
      assert.equal(result.content[0]?.text, 'accept');
      assert.equal(asked[0]?.['method'], 'elicitation/create');
      assert.equal(asked[0]?.['mode'], 'url');
      const id = asked[0]?.['elicitationId'];
      assert.equal(typeof id, 'string');
      assert.ok(kept !== undefined);
      assert.equal(server.notifyElicitationComplete(kept, id as string), true);
      await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(
        notifications.filter((n) => n.method === 'notifications/elicitation/complete').map((n) => n.params),
        [{ elicitationId: id }],
      );
    } finally {
      await conn.close();
      await server.close();
    }
  });

  it('notifications/elicitation/complete is not sent on a 2025-06-18 session, where it does not exist', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    let kept: ServerSession | undefined;
    server.tool('who', {}, (_a, ctx) => {
      kept = ctx.session;
      return 'x';
    });
    const { conn, notifications } = await legacyClient(server, '2025-06-18', () => ({}));
    try {
      await conn.request('tools/call', { name: 'who', arguments: {} });
      assert.ok(kept !== undefined);
      assert.equal(server.notifyElicitationComplete(kept, 'abc'), false);
      await new Promise((r) => setTimeout(r, 5));
      assert.equal(notifications.some((n) => n.method === 'notifications/elicitation/complete'), false);
    } finally {
      await conn.close();
      await server.close();
    }
  });

  it('notifications/roots/list_changed reaches onRootsListChanged with the session, which can ask for the roots', async () => {
    let roots: unknown;
    let resolveSeen: () => void = () => undefined;
    const seen = new Promise<void>((r) => (resolveSeen = r));
    const server = new McpServer(
      { name: 's', version: '1' },
      {
        onRootsListChanged: (session) => {
          void session.peer.request('roots/list', {}).then((r) => {
            roots = r;
            resolveSeen();
          });
        },
      },
    );
    server.tool('noop', {}, () => 'x');
    const { conn } = await legacyClient(server, '2025-11-25', (method) => (method === 'roots/list' ? { roots: [{ uri: 'file:///work', name: 'work' }] } : {}));
    try {
      await conn.notify('notifications/roots/list_changed');
      await seen;
      assert.deepEqual(roots, { roots: [{ uri: 'file:///work', name: 'work' }] });
    } finally {
      await conn.close();
      await server.close();
    }
  });
});
