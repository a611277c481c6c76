/**
 * The TaintStore contract: one body every implementation passes (memory, SQLite behind the
 * persistent store, Redis), run by `taintStore.test.ts`. A harness yields a store, optionally a
 * second instance on the same data (another gateway instance: what one adds the other reads
 * at once) and a restart (the same data opened again). Every read and write is awaited, so a
 * store that answers with promises and one that answers at once are held to the same results.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinTaint, taintKeys, type SecretOrigin, type TaintSource, type TaintState, type TaintStore } from '../../../src/host/policy/taint.js';

/** A store, and the same data as another instance or after a restart. */
export interface TaintStoreHarness {
  readonly store: TaintStore;
  /** Another instance on the same data, open at the same time (shared stores only). */
  readonly peer?: TaintStore;
  /** Closes the store and opens its data again (persistent stores only). */
  readonly restart?: () => Promise<TaintStore>;
}

/** Bounds the harness passes to the store it opens. */
export interface TaintBounds {
  readonly maxSources: number;
  readonly maxSecrets: number;
}

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const HOUR = 3_600_000;
const source = (label: TaintSource['label'], server: string, tool: string | undefined, at: number): TaintSource => ({ label, server, tool, at, via: `config servers.${server}.labels` });
const origin = (server: string, at: number): SecretOrigin => ({ server, tool: 'read', at });

const read = async (store: TaintStore, key: string, now: number): Promise<TaintState | undefined> => store.get(key, now);
const sorted = (state: TaintState | undefined): TaintSource[] => [...(state?.sources ?? [])].sort((a, b) => a.at - b.at || a.label.localeCompare(b.label));

/** Runs the contract on the implementation `name`; `open` makes a fresh store (fresh data) each time. */
export function taintStoreContract(name: string, open: (bounds?: TaintBounds) => Promise<TaintStoreHarness>, kind: { readonly shared: boolean; readonly persistent: boolean }): void {
  const peerOf = (h: TaintStoreHarness): TaintStore => h.peer ?? assert.fail(`${name} is shared but its harness has no peer`);
  describe(`TaintStore contract: ${name}`, () => {
    it('a key never tainted reads as no taint', async () => {
      const { store } = await open();
      assert.equal(await read(store, 'session:nobody', T0), undefined);
    });

    it('a source added is read back as written (a tool, and none: a resource server)', async () => {
      const { store } = await open();
      await store.addSource('session:s1', source('private-data', 'notes', 'notes__read', T0), HOUR, T0);
      await store.addSource('session:s1', source('untrusted-content', 'web', undefined, T0 + 1), HOUR, T0 + 1);
      assert.deepEqual(sorted(await read(store, 'session:s1', T0 + 2)), [source('private-data', 'notes', 'notes__read', T0), source('untrusted-content', 'web', undefined, T0 + 1)]);
    });

    it('one label, server and tool is kept once, with its latest time', async () => {
      const { store } = await open();
      await store.addSource('principal:p', source('egress', 'chat', 'send', T0), HOUR, T0);
      await store.addSource('principal:p', source('egress', 'chat', 'send', T0 + 5), HOUR, T0 + 5);
      assert.deepEqual(sorted(await read(store, 'principal:p', T0 + 6)), [source('egress', 'chat', 'send', T0 + 5)]);
    });

    it('a key lives until its last add plus the window, and not a moment longer (taint is not cut short, nor kept forever)', async () => {
      const { store } = await open();
      await store.addSource('session:s', source('private-data', 'notes', 'read', T0), HOUR, T0);
      await store.addSource('session:s', source('egress', 'chat', 'send', T0 + 30 * 60_000), HOUR, T0 + 30 * 60_000);
      assert.equal((await read(store, 'session:s', T0 + HOUR + 1))?.sources.length, 2, 'the second add extended the window');
      assert.equal(await read(store, 'session:s', T0 + 90 * 60_000 + 1), undefined);
    });

    it('a shorter window added later never shortens a key (the principal keeps its window)', async () => {
      const { store } = await open();
      await store.addSource('principal:p', source('private-data', 'notes', 'read', T0), 10 * HOUR, T0);
      await store.addSource('principal:p', source('egress', 'chat', 'send', T0 + 1), HOUR, T0 + 1);
      assert.equal((await read(store, 'principal:p', T0 + 5 * HOUR))?.sources.length, 2);
    });

    it('an add after the key expired starts afresh (what expired does not come back)', async () => {
      const { store } = await open();
      await store.addSource('session:s', source('private-data', 'notes', 'read', T0), HOUR, T0);
      await store.addSource('session:s', source('egress', 'chat', 'send', T0 + 2 * HOUR), HOUR, T0 + 2 * HOUR);
      assert.deepEqual(sorted(await read(store, 'session:s', T0 + 2 * HOUR + 1)), [source('egress', 'chat', 'send', T0 + 2 * HOUR)]);
    });

    it('secret fingerprints are read back with their origin, and extend the key', async () => {
      const { store } = await open();
      await store.addSecret('session:s', '32:aa', origin('vault', T0), HOUR, T0);
      await store.addSecret('session:s', '40:bb', origin('notes', T0 + 1), HOUR, T0 + 1);
      const state = await read(store, 'session:s', T0 + 2);
      assert.deepEqual([...(state?.secrets ?? [])], [['32:aa', origin('vault', T0)], ['40:bb', origin('notes', T0 + 1)]]);
      assert.deepEqual(state?.sources, []);
    });

    it('keys are apart: one session\'s taint is not another\'s', async () => {
      const { store } = await open();
      await store.addSource('session:a', source('private-data', 'notes', 'read', T0), HOUR, T0);
      assert.equal(await read(store, 'session:b', T0 + 1), undefined);
      assert.equal(await read(store, 'principal:a', T0 + 1), undefined);
    });

    it('joinTaint joins the session\'s and the principal\'s taint, once per label, server and tool', async () => {
      const { store } = await open();
      const keys = taintKeys('alice', 's1', undefined);
      await store.addSource('session:s1', source('private-data', 'notes', 'read', T0), HOUR, T0);
      await store.addSource('principal:alice', source('private-data', 'notes', 'read', T0), HOUR, T0);
      await store.addSource('principal:alice', source('untrusted-content', 'web', 'fetch', T0 + 1), HOUR, T0 + 1);
      await store.addSecret('principal:alice', '32:cc', origin('vault', T0), HOUR, T0);
      const state = await joinTaint(store, keys, T0 + 2);
      assert.deepEqual(sorted(state), [source('private-data', 'notes', 'read', T0), source('untrusted-content', 'web', 'fetch', T0 + 1)]);
      assert.deepEqual([...(state?.secrets.keys() ?? [])], ['32:cc']);
    });

    it('sources and secrets are bounded per key, the oldest dropped first (a flood of secrets does not grow a key without end)', async () => {
      const { store } = await open({ maxSources: 3, maxSecrets: 2 });
      for (let i = 0; i < 5; i++) await store.addSource('session:s', source('private-data', `server${i}`, 'read', T0 + i), HOUR, T0 + i);
      for (let i = 0; i < 4; i++) await store.addSecret('session:s', `10:${i}`, origin('vault', T0 + i), HOUR, T0 + i);
      const state = await read(store, 'session:s', T0 + 10);
      assert.deepEqual(sorted(state).map((s) => s.server), ['server2', 'server3', 'server4']);
      assert.deepEqual([...(state?.secrets.keys() ?? [])], ['10:2', '10:3']);
    });

    if (kind.shared) {
    it('what one instance adds, another instance reads at once (taint is not shed by reaching another instance)', async () => {
      const h = await open();
      const { store } = h;
      const peer = peerOf(h);
      await store.addSource('session:s', source('untrusted-content', 'web', 'fetch', T0), HOUR, T0);
      await store.addSecret('principal:p', '32:dd', origin('vault', T0), HOUR, T0);
      assert.deepEqual(sorted(await read(peer, 'session:s', T0 + 1)), [source('untrusted-content', 'web', 'fetch', T0)]);
      assert.deepEqual([...((await read(peer, 'principal:p', T0 + 1))?.secrets.keys() ?? [])], ['32:dd']);
    });

    it('two instances adding to one key at once lose nothing (no lost update)', async () => {
      const h = await open();
      const { store } = h;
      const peer = peerOf(h);
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : peer).addSource('principal:p', source('private-data', `server${i}`, 'read', T0 + i), HOUR, T0 + i)));
      assert.equal((await read(store, 'principal:p', T0 + 30))?.sources.length, 20);
    });
    }

    if (kind.persistent) {
    it('taint outlives a restart of the store', async () => {
      const { store, restart } = await open();
      assert.ok(restart !== undefined, `${name} is persistent but its harness cannot restart it`);
      const now = Date.now();
      await store.addSource('session:s', source('private-data', 'notes', 'read', now), HOUR, now);
      const again = await restart();
      assert.deepEqual(sorted(await read(again, 'session:s', now + 1)), [source('private-data', 'notes', 'read', now)]);
    });
    }
  });
}
