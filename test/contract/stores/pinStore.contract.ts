/**
 * The PinStore contract: one body every implementation passes (memory, SQLite, PostgreSQL),
 * run by `pinStore.test.ts`. A harness yields the store and a second instance on the same
 * data (another process, another gateway instance): what the peer saves reaches the store's
 * `watch` listeners, and a damaged record is refused (fail closed), never trusted again on
 * first use.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import type { PinStore, ServerPins } from '../../../src/host/pins/pinStore.js';

/** One store, the other writer on the same data, and a way to damage the stored record. */
export interface PinStoreHarness {
  readonly store: PinStore;
  /** Saves as another instance (its change must reach `store.watch`). */
  readonly peerSave: (pins: ServerPins) => Promise<void>;
  /** Overwrites the stored record of `identity` with something that is not a pin record; undefined for memory. */
  readonly corrupt?: (identity: string) => Promise<void>;
}

/** A sample record with an approved and a pending item. */
export function samplePins(identity: string, alias = 'w'): ServerPins {
  return {
    identity,
    alias,
    names: 'sha256:00',
    items: { 'tool:a': { kind: 'tool', name: 'a', definition: { name: 'a', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, digests: { text: 'sha256:01', schema: 'sha256:02' }, trust: 'first-use', at: 1 } },
    pending: {
      'tool:b': { kind: 'tool', name: 'b', definition: { name: 'b', description: 'ünïcødé ✓' }, digests: { text: 'sha256:03' }, status: 'added', changes: [{ class: 'added', path: '$', summary: 'new tool' }], at: 2 },
    },
    updatedAt: 3,
  };
}

const byIdentity = (records: readonly ServerPins[]): ServerPins[] => [...records].sort((a, b) => a.identity.localeCompare(b.identity));

/** Runs the contract against the harness `open` yields (a fresh, empty store per test). */
export function pinStoreContract(name: string, open: () => Promise<PinStoreHarness>, options: { readonly persistent: boolean }): void {
  describe(`PinStore contract: ${name}`, () => {
    it('starts empty, round-trips records exactly, replaces on save, forgets on remove', async () => {
      const { store } = await open();
      assert.deepEqual(await store.load(), []);
      const one = samplePins('stdio:sha256:ab');
      const two = samplePins('http:https://example.com/mcp', 'remote');
      await store.save(one);
      await store.save(two);
      assert.deepEqual(byIdentity(await store.load()), byIdentity([one, two]));
      const approved = { ...one, alias: 'renamed', items: { ...one.items, 'tool:b': { ...one.items['tool:a']!, name: 'b', trust: 'approved' as const } }, pending: {}, updatedAt: 4 };
      await store.save(approved);
      assert.deepEqual(byIdentity(await store.load()), byIdentity([approved, two]));
      await store.remove(one.identity);
      assert.deepEqual(await store.load(), [two]);
      await store.remove('never-saved');
      assert.deepEqual(await store.load(), [two]);
    });

    it('keeps item keys that look like object internals as plain data (prototype pollution)', async () => {
      const { store } = await open();
      const base = samplePins('stdio:sha256:cd');
      // JSON.parse makes `__proto__` an own key, as a server-chosen tool name would arrive.
      const items = JSON.parse(`{"__proto__": ${JSON.stringify({ ...base.items['tool:a']!, name: '__proto__' })}}`) as ServerPins['items'];
      const odd = { ...base, items };
      await store.save(odd);
      const [loaded] = await store.load();
      assert.ok(loaded !== undefined);
      assert.ok(Object.hasOwn(loaded.items, '__proto__'), 'the key is an own property');
      assert.equal(({} as Record<string, unknown>)['name'], undefined, 'Object.prototype is untouched');
    });

    it('saves under concurrency: the last completed save of a server wins whole, never a mix', async () => {
      const { store } = await open();
      const versions = Array.from({ length: 8 }, (_, i) => ({ ...samplePins('stdio:sha256:ef'), alias: `v${i}`, updatedAt: i }));
      await Promise.all(versions.map((v) => store.save(v)));
      const [loaded] = await store.load();
      assert.ok(loaded !== undefined);
      const winner = versions.find((v) => v.alias === loaded.alias);
      assert.deepEqual(loaded, winner);
    });

    it('a pin approved on another instance reaches this one (watch)', async () => {
      const harness = await open();
      const changed = samplePins('stdio:sha256:12', 'approved-elsewhere');
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const noticed = new Promise<void>((resolve, reject) => {
        deadline = setTimeout(() => reject(new Error('the other instance\'s change was not noticed within 5 s')), 5000);
        const stop = harness.store.watch?.(() => {
          stop?.();
          resolve();
        });
        assert.ok(stop !== undefined, 'the store can be watched');
      });
      // The listener may need a moment to be in place (LISTEN on its own connection): save until noticed.
      let done = false;
      void noticed.then(() => (done = true), () => (done = true));
      while (!done) {
        await harness.peerSave(changed);
        await Promise.race([noticed, new Promise((r) => setTimeout(r, 50))]).catch(() => undefined);
      }
      clearTimeout(deadline);
      await noticed;
      assert.deepEqual(await harness.store.load(), [changed]);
    });

    // Memory holds what it was given: nothing outside can damage it.
    if (options.persistent) it('a damaged record in the store is refused as corrupt, never trusted again on first use', async (t) => {
      const harness = await open();
      const corrupt = harness.corrupt;
      if (corrupt === undefined) throw new Error(`${name} has no way to damage a record: the harness must provide one`);
      await harness.store.save(samplePins('stdio:sha256:34'));
      await corrupt('stdio:sha256:34');
      await assert.rejects(harness.store.load(), (error: unknown) => isMcpError(error) && error.code === McpErrorCode.StoreCorrupt && /damaged|corrupt/i.test(error.message));
      t.diagnostic('refused with ERR_MCP_STORE_CORRUPT');
    });
  });
}
