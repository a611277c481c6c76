// The gateway between an upstream client and downstream servers of either era, in memory:
// log messages of a call reach the caller that made it, resource subscriptions reach the
// server that owns the URI (counted, ended with the upstream session or stream), and a
// downstream server is told only the client capabilities the upstream has.
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
// https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { McpClientOptions } from '../../../src/client/types.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import type { LoggingMessageParams } from '../../../src/protocol/model/utilities.js';
import type { ProtocolRevision } from '../../../src/protocol/revisions.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { McpError } from '../../../src/util/errors.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';

const WATCHED = 'test://watched';
const ERAS: readonly ProtocolRevision[] = ['2026-07-28', '2025-11-25'];

/** What the downstream's `hang` tool reports: that it started, and the reason its call was aborted with. */
interface HangWatch {
  started: () => void;
  aborted: (reason: unknown) => void;
}

/** A downstream server of one revision: `chatty` logs twice, `caps` returns the capabilities it was told, `hang` waits until cancelled, one watched resource. */
function downstream(version: ProtocolRevision, hang?: HangWatch): McpServer {
  const server = new McpServer({ name: 'down', version: '1.0.0' }, { versions: [version] });
  server.tool(
    'hang',
    { inputSchema: { type: 'object', properties: {} } },
    (_args, ctx) =>
      new Promise<string>((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          hang?.aborted(ctx.signal.reason);
          reject(ctx.signal.reason as Error);
        });
        hang?.started();
      }),
  );
  server.tool('chatty', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    await ctx.log('info', 'first');
    await ctx.log('debug', 'too fine');
    await ctx.log('warning', 'second');
    return 'done';
  });
  server.tool('caps', { inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => JSON.stringify(Object.keys(ctx.clientCapabilities).sort()));
  server.tool('token', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    await ctx.progress(1, 1, 'working');
    return String(ctx.meta['progressToken'] !== undefined);
  });
  server.resource(WATCHED, { name: 'watched', mimeType: 'text/plain' }, (uri) => [{ uri, mimeType: 'text/plain', text: 'now' }]);
  return server;
}

interface Rig {
  readonly hang: HangWatch;
  readonly host: Host;
  readonly gateway: Gateway;
  readonly down: () => McpServer;
  /** A new upstream client of `version`, connected to the gateway. */
  connect(version: ProtocolRevision, options?: McpClientOptions): Promise<McpClient>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function rig(downVersion: ProtocolRevision): Promise<Rig> {
  const hang: HangWatch = { started: () => undefined, aborted: () => undefined };
  const servers = memoryServers(() => downstream(downVersion, hang));
  const host = await Host.open({ servers: [memorySpec('down')], transport: servers.factory, capabilities: GATEWAY_CLIENT_CAPABILITIES });
  await host.start();
  const gateway = new Gateway(host);
  open.push(async () => {
    await gateway.close();
    await host.close();
  });
  return {
    hang,
    host,
    gateway,
    down: () => servers.started.get('down')?.at(-1) as McpServer,
    connect: async (version, options = {}) => {
      const [clientSide, serverSide] = createInMemoryPair();
      await gateway.server.connect(serverSide);
      const client = new McpClient({ name: 'up', version: '1.0.0' }, { versions: [version], defaultTimeoutMs: 5000, ...options });
      await client.connect(clientSide);
      open.push(() => client.close());
      return client;
    },
  };
}

const text = (result: { content: readonly unknown[] }): string => (result.content[0] as { text?: string }).text ?? '';

for (const downVersion of ERAS) {
  for (const upVersion of ERAS) {
    describe(`gateway: upstream ${upVersion}, downstream ${downVersion}`, () => {
      it('relays the log messages a server sends during a call to the caller, at the caller’s own level', async () => {
        const r = await rig(downVersion);
        const logs: LoggingMessageParams[] = [];
        const client = await r.connect(upVersion, { on: { logMessage: (p) => void logs.push(p) } });
        await client.setLoggingLevel('info');
        assert.equal(text(await client.callTool('chatty', {})), 'done');
        assert.deepEqual(
          logs.map((l) => [l.level, l.data]),
          [
            ['info', 'first'],
            ['warning', 'second'],
          ],
        );
      });

      it('an upstream cancellation reaches the server: the forwarded call is cancelled downstream', async () => {
        const r = await rig(downVersion);
        const started = new Promise<void>((resolve) => (r.hang.started = resolve));
        const aborted = new Promise<unknown>((resolve) => (r.hang.aborted = resolve));
        const client = await r.connect(upVersion);
        const controller = new AbortController();
        const call = client.callTool('hang', {}, { signal: controller.signal });
        await started;
        controller.abort(new Error('user stopped'));
        await assert.rejects(call, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_CANCELLED');
        const reason = await aborted;
        assert.ok(reason instanceof McpError && reason.code === 'ERR_MCP_REQUEST_CANCELLED', `the server's signal aborted with ${String(reason)}`);
      });

      it('progress is asked of the server only for a caller that asked for it, and reaches that caller', async () => {
        const r = await rig(downVersion);
        const client = await r.connect(upVersion);
        assert.equal(text(await client.callTool('token', {})), 'false');
        const progress: (string | undefined)[] = [];
        assert.equal(text(await client.callTool('token', {}, { onProgress: (p) => progress.push(p.message) })), 'true');
        assert.deepEqual(progress, ['working']);
      });

      it('log leak: a caller that set no log level gets no log messages', async () => {
        const r = await rig(downVersion);
        const logs: LoggingMessageParams[] = [];
        const client = await r.connect(upVersion, { on: { logMessage: (p) => void logs.push(p) } });
        assert.equal(text(await client.callTool('chatty', {})), 'done');
        // 2025-11-25 sessions default to every level unless set; 2026-07-28 requests carry none.
        if (upVersion === '2026-07-28') assert.deepEqual(logs, []);
        else assert.equal(logs.length, 3);
      });

      it('capability inflation: the server is told only what the upstream client can answer', async () => {
        const r = await rig(downVersion);
        const client = await r.connect(upVersion, { capabilities: { sampling: {} } });
        const told = JSON.parse(text(await client.callTool('caps', {}))) as string[];
        // A stateful server learned the host's capabilities once, at initialize.
        assert.deepEqual(told, downVersion === '2026-07-28' ? ['sampling'] : Object.keys(GATEWAY_CLIENT_CAPABILITIES).sort());
      });

      it('forwards a resource subscription to the server and its updates to the subscriber', async () => {
        const r = await rig(downVersion);
        let heard: (uri: string) => void = () => undefined;
        const client = await r.connect(upVersion, { on: { resourceUpdated: (uri) => heard(uri) } });
        const subscription = await client.listen({ resourceSubscriptions: [WATCHED] });
        assert.deepEqual(subscription.granted.resourceSubscriptions, [WATCHED]);
        assert.equal(r.host.server('down')?.subscriptions.get(WATCHED), 1);
        const arrived = new Promise<string>((resolve) => (heard = resolve));
        r.down().notifyResourceUpdated(WATCHED);
        assert.equal(await arrived, WATCHED);
        subscription.close();
        await released(r);
      });
    });
  }
}

/**
 * Resolves once the host holds no downstream subscription of WATCHED. The release follows the
 * upstream's cancellation or session end on the gateway's side, which the upstream cannot
 * observe: the condition is checked on every turn of the event loop until it holds.
 */
function released(r: Rig): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (r.host.server('down')?.subscriptions.has(WATCHED) === true) setImmediate(check);
      else resolve();
    };
    check();
  });
}

describe('gateway: resource subscriptions are counted per server and URI', () => {
  it('cross-client unsubscribe: one client leaving does not end another client’s subscription', async () => {
    const r = await rig('2025-11-25');
    const a = await r.connect('2025-11-25');
    let heard: (uri: string) => void = () => undefined;
    const b = await r.connect('2025-11-25', { on: { resourceUpdated: (uri) => heard(uri) } });
    await a.subscribeResource(WATCHED);
    await b.subscribeResource(WATCHED);
    await a.subscribeResource(WATCHED); // a repeated subscribe of one session counts once
    assert.equal(r.host.server('down')?.subscriptions.get(WATCHED), 2);
    await a.unsubscribeResource(WATCHED);
    assert.equal(r.host.server('down')?.subscriptions.get(WATCHED), 1);
    const arrived = new Promise<string>((resolve) => (heard = resolve));
    r.down().notifyResourceUpdated(WATCHED);
    assert.equal(await arrived, WATCHED);
    await b.unsubscribeResource(WATCHED);
    assert.equal(r.host.server('down')?.subscriptions.has(WATCHED), false);
  });

  it('subscription leak: a session that ends without unsubscribing leaves no downstream subscription behind', async () => {
    const r = await rig('2026-07-28');
    const a = await r.connect('2025-11-25');
    await a.subscribeResource(WATCHED);
    assert.equal(r.host.server('down')?.subscriptions.get(WATCHED), 1);
    await a.close();
    await released(r);
  });

  it('an unknown URI is refused on subscribe, naming it', async () => {
    const r = await rig('2025-11-25');
    const a = await r.connect('2025-11-25');
    await assert.rejects(a.subscribeResource('test://nowhere'), /test:\/\/nowhere/);
    assert.equal(r.host.server('down')?.subscriptions.size, 0);
  });
});
