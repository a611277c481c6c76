/**
 * The PinStore contract: one body every implementation passes (memory, SQLite, PostgreSQL),
 * run by `pinStore.test.ts`. A harness yields the store and a second instance on the same
 * data (another process, another gateway instance): what the peer saves reaches the store's
 * `watch` listeners, a change made on the peer is never lost to a write decided before it
 * (the lost update), and a damaged record is refused (fail closed), never trusted again on first
 * use.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import type { PinStore, ServerPins } from '../../../src/host/pins/pinStore.js';
import { PinTrust } from '../../../src/host/pins/pinTrust.js';
import { decidePending } from '../../../src/host/pins/pinReview.js';
import { serverIdentity } from '../../../src/host/pins/serverIdentity.js';
import type { VetInput } from '../../../src/host/catalogVetting.js';

/** One store, the other writer on the same data, and a way to damage the stored record. */
export interface PinStoreHarness {
  readonly store: PinStore;
  /** The same data opened as another instance (the same object for memory). */
  readonly peer: PinStore;
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

const SCHEMA = { type: 'object' as const, properties: { word: { type: 'string' } } };

/** One list of the `dictionary` server whose `lookup` tool has `description`. */
function dictionaryList(description: string): VetInput {
  return {
    serverId: 'dictionary',
    spec: { id: 'dictionary', launch: { kind: 'stdio', command: 'dictionary', args: [], env: {}, cwd: undefined }, options: { tools: { allow: undefined, deny: [] }, timeoutMs: 5_000, maxConcurrency: 4, era: 'auto', oauth: undefined } },
    serverInfo: { name: 'dictionary', version: '1' },
    instructions: undefined,
    catalog: { tools: [{ name: 'lookup', description, inputSchema: SCHEMA }], prompts: [], resources: [], templates: [] },
    envelope: undefined,
  };
}

/**
 * Two gateway instances on the store: A pins `dictionary` on first use, B loads the store, then
 * `lookup` changes downstream and A quarantines it (B has not reloaded: its record is stale).
 */
async function staleInstance(open: () => Promise<PinStoreHarness>) {
  const { store, peer } = await open();
  const first = dictionaryList('Looks up a word.');
  const second = dictionaryList('Looks up a word, second edition.');
  const a = await PinTrust.open({ store, now: () => 10 });
  assert.equal((await a.vet(first)).catalog.tools.length, 1, 'pinned on first use');
  const b = await PinTrust.open({ store: peer, now: () => 20 });
  const quarantined = await a.vet(second);
  assert.equal(quarantined.catalog.tools.length, 0);
  assert.equal(quarantined.quarantined[0]?.name, 'lookup');
  return { store, peer, second, identity: serverIdentity(first.spec), a, b };
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

    it('a quarantine written by a stale instance does not undo an approval (lost update)', async () => {
      const { store, peer, second, identity, a, b } = await staleInstance(open);
      const served = (r: { catalog: { tools: readonly unknown[] } }): number => r.catalog.tools.length;
      // A person approves it once (another process); B has not reloaded and still holds the old record.
      assert.deepEqual(await decidePending(peer, identity, 'approve', 'tool:lookup', 30), ['tool:lookup']);
      const late = await b.vet(second);
      assert.equal(served(late), 1, 'the stale instance serves the approved definition');
      assert.equal(b.verdict('dictionary', 'tool', 'lookup'), undefined, 'and its calls pass');
      const [stored] = await store.load();
      assert.equal(stored?.items['tool:lookup']?.trust, 'approved', 'the approval is still stored');
      assert.match(JSON.stringify(stored?.items['tool:lookup']?.definition), /second edition/);
      assert.deepEqual(stored?.pending, {}, 'no quarantine was written back over it');
      await a.reload();
      assert.equal(served(await a.vet(second)), 1, 'the instance that quarantined it serves it after its reload');
    });

    it('a quarantine decided on a stale record does not bring back a change a person rejected meanwhile', async () => {
      const { store, peer, second, identity, b } = await staleInstance(open);
      assert.deepEqual(await decidePending(peer, identity, 'reject', 'tool:lookup', 30), ['tool:lookup']);
      const late = await b.vet(second);
      assert.equal(late.catalog.tools.length, 0, 'still withheld');
      assert.match(late.quarantined[0]?.reason ?? '', /a person rejected the change/);
      const [stored] = await store.load();
      assert.equal(stored?.pending['tool:lookup']?.status, 'rejected', 'the rejection is still stored');
    });

    it('update is atomic across instances: concurrent read-modify-writes from both lose none (lost update)', async () => {
      const { store, peer } = await open();
      const identity = 'stdio:sha256:56';
      await store.save({ ...samplePins(identity), pending: {} });
      const template = samplePins(identity).pending['tool:b']!;
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 === 0 ? store : peer).update(identity, (current) => {
            assert.ok(current !== undefined);
            return { ...current, pending: { ...current.pending, [`tool:t${i}`]: { ...template, name: `t${i}` } } };
          }),
        ),
      );
      const [loaded] = await store.load();
      assert.equal(Object.keys(loaded?.pending ?? {}).length, 16, 'every writer saw the writes before it');
      assert.deepEqual(Object.keys(loaded?.items ?? {}), ['tool:a']);
    });

    it('update writes nothing when the change declines, and an error thrown by the change writes nothing either', async () => {
      const { store } = await open();
      const identity = 'stdio:sha256:78';
      assert.equal(await store.update(identity, () => undefined), undefined);
      assert.deepEqual(await store.load(), []);
      const one = samplePins(identity);
      assert.deepEqual(await store.update(identity, (current) => (current === undefined ? one : undefined)), one);
      assert.deepEqual(await store.update(identity, () => undefined), one, 'resolves to the stored record');
      await assert.rejects(
        store.update(identity, () => {
          throw new Error('declined');
        }),
      );
      assert.deepEqual(await store.load(), [one]);
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
