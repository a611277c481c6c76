// The gateway's per-user connection store is opened on first use (`cli/connectionStores.ts`):
// no key and no database for a gateway without per-user servers; a store that cannot be opened
// refuses every operation (fail closed) and is tried again on the next one.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lazyConnectionStore, openConnectionStore } from '../../../src/cli/connectionStores.js';
import { MemoryConnectionStore } from '../../../src/host/connections.js';

const T = { timeout: 10_000 };
const tokens = { accessToken: 'at-1', tokenType: 'Bearer', requestedScopes: ['repo'], issuer: 'https://as.example', resource: 'https://mcp.example/mcp' };

describe('lazyConnectionStore', () => {
  it('creates nothing until used; the first use opens the SQLite store and its key in the state folder', T, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-lazy-'));
    try {
      const store = lazyConnectionStore(async () => (await openConnectionStore({ stateDir: dir, environment: {} })).store);
      assert.equal(existsSync(join(dir, 'connections.key')), false);
      assert.equal(existsSync(join(dir, 'connections.db')), false);
      await store.put({ principal: 'alice', server: 'https://mcp.example/mcp', serverId: 'gh', mode: 'per-user', tokens, createdAt: 1, updatedAt: 1 });
      assert.equal(existsSync(join(dir, 'connections.key')), true);
      assert.equal((await store.get({ principal: 'alice', server: 'https://mcp.example/mcp' }))?.tokens.accessToken, 'at-1');
      await store.close();
      // A restart reads the same connection back (the key file is reused).
      const again = lazyConnectionStore(async () => (await openConnectionStore({ stateDir: dir, environment: {} })).store);
      assert.equal((await again.get({ principal: 'alice', server: 'https://mcp.example/mcp' }))?.tokens.accessToken, 'at-1');
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fail closed: a store that cannot be opened (a damaged key file) refuses each operation, and is tried again', T, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-lazy-'));
    try {
      await writeFile(join(dir, 'connections.key'), 'not a key', { mode: 0o600 });
      let attempts = 0;
      const store = lazyConnectionStore(async () => {
        attempts++;
        return (await openConnectionStore({ stateDir: dir, environment: {} })).store;
      });
      await assert.rejects(store.get({ principal: 'alice', server: 'https://mcp.example/mcp' }), /connections could not be opened/);
      await assert.rejects(store.takeSignIn('state', Date.now()), /connections could not be opened/);
      assert.equal(attempts, 2);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('after close, operations are refused and the opened store is closed once', T, async () => {
    let closed = 0;
    const inner = new MemoryConnectionStore();
    const store = lazyConnectionStore(() => Promise.resolve(Object.assign(inner, { close: () => ((closed++), Promise.resolve()) })));
    await store.list();
    await store.close();
    assert.equal(closed, 1);
    await assert.rejects(store.list(), /closed/);
  });
});
