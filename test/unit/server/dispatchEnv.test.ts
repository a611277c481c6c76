// A transport's DispatchEnv keeps `signal` (created lazily) and `onAbort` on its prototype. On a
// stateful session whose env carries no `peer`, the server gives handlers the session's peer
// through a view of that env: the view must still reach the signal and onAbort (a copy of the
// env's own members lost both, and `ctx.signal` was undefined).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { DispatchEnv, SessionPeer } from '../../../src/transport/types.js';
import { LazyAbort } from '../../../src/util/lazyAbort.js';

class ClassEnv extends LazyAbort implements DispatchEnv {
  readonly extra = undefined;
  readonly session: unknown;
  constructor(session: unknown) {
    super();
    this.session = session;
  }
  notify(_notification: JsonRpcNotification): void {}
}

const peer: SessionPeer = { notify: () => undefined, request: () => Promise.resolve({}) };

describe('server: a stateful request whose env has no peer', () => {
  it('the handler sees the transport env’s signal, and onAbort hears a cancellation without the signal being created', async () => {
    let release: (() => void) | undefined;
    const seen: string[] = [];
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('wait', { inputSchema: { type: 'object' } }, (_args, ctx) => {
      seen.push(`aborted=${String(ctx.signal.aborted)}`);
      return new Promise<string>((resolve) => {
        ctx.onAbort(() => {
          seen.push('cancel heard');
          resolve('cancelled');
        });
        release = () => resolve('done');
      });
    });
    const session = server.createSession(peer);
    const init = await server.dispatch(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
      new ClassEnv(session),
    );
    assert.ok(init !== undefined && 'result' in init, JSON.stringify(init));
    await server.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, new ClassEnv(session));
    const env = new ClassEnv(session);
    const answer = server.dispatch({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } }, env);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(typeof release, 'function', 'the handler ran');
    env.abort(new Error('client went away'));
    const response = await answer;
    assert.deepEqual(seen, ['aborted=false', 'cancel heard']);
    assert.ok(response !== undefined && 'result' in response, JSON.stringify(response));
  });
});
