// A remote server that needs an OAuth sign-in: state needs-login with the instruction, not a
// crash (no failure counted, never crash-looping), retried slowly, and ready once signed in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Downstream, type ServerHealth } from '../../../src/host/downstream.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { McpError, McpErrorCode } from '../../../src/util/errors.js';
import { memorySpec, until } from './support/memoryServers.js';

describe('host/downstream: needs-login', () => {
  it('a start that fails with ERR_MCP_LOGIN_REQUIRED (even wrapped) is needs-login, then ready once a token exists', async () => {
    let signedIn = false;
    const listeners = new Set<(h: ServerHealth) => void>();
    const downstream = new Downstream(memorySpec('remote'), {
      clientInfo: { name: 'test', version: '1' },
      backoff: { initialMs: 5, maxMs: 20, crashLoopAfter: 1 },
      onHealth: (h) => {
        for (const listener of listeners) listener(h);
      },
      transport: async () => {
        if (!signedIn) {
          const inner = new McpError(McpErrorCode.LoginRequired, 'Server remote needs an OAuth sign-in: run `switchboard login remote`');
          throw new McpError(McpErrorCode.SendFailed, 'HTTP initialize failed', { cause: inner });
        }
        const server = new McpServer({ name: 'remote', version: '1' });
        server.tool('t', { description: 't' }, () => 'ok');
        const [client, side] = createInMemoryPair();
        await server.connect(side);
        return client;
      },
    });
    try {
      await downstream.start();
      const health = downstream.health;
      assert.equal(health.state, 'needs-login');
      assert.equal(health.lastError, 'Server remote needs an OAuth sign-in: run `switchboard login remote`');
      assert.equal(health.failures, 0);
      assert.equal(health.crashLooping, false);
      assert.ok(health.nextStartAt !== undefined);
      await assert.rejects(
        downstream.run((client) => client.listTools()),
        (error) => error instanceof McpError && error.code === McpErrorCode.ServerUnavailable && /needs-login.*switchboard login remote/.test(error.message),
      );
      signedIn = true;
      await until<ServerHealth>((l) => listeners.add(l), (h) => h.state === 'ready');
      assert.deepEqual(downstream.catalog.tools.map((t) => t.name), ['t']);
    } finally {
      await downstream.stop();
    }
  });
});
