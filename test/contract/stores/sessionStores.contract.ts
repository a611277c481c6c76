/**
 * The contracts of the session-side stores, run by `sessionStores.test.ts` against memory and
 * Redis:
 *
 * - EventStore (SSE resumability): a stream's events after a seq, oldest first, never another
 *   stream's or another session's; bounded per session, oldest first; dropped with the session.
 * - NonceStore (MRTR single-use `requestState`) and DpopReplayCache (DPoP `jti`): a value is
 *   accepted once until it expires, also under concurrent use and across instances.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DpopNonceSource } from '../../../src/auth/resource/dpopProof.js';
import type { EventStore, StoredEvent } from '../../../src/transport/http/server/eventStore.js';

/** A store and, for a shared one, another instance's view of the same data. */
export interface SharedStore<T> {
  readonly store: T;
  readonly peer?: T;
}

const event = (seq: number, text = `e${seq}`): StoredEvent => ({ seq, message: { jsonrpc: '2.0', method: 'notifications/message', params: { data: text } } });

/** Runs the EventStore contract; `open(max)` yields a fresh store keeping at most `max` events per session. */
export function eventStoreContract(name: string, open: (maxEventsPerSession: number) => Promise<SharedStore<EventStore>>): void {
  describe(`EventStore contract: ${name}`, () => {
    it('replays the events of a stream after a seq, oldest first (Last-Event-ID)', async () => {
      const { store, peer } = await open(100);
      for (const seq of [1, 2, 3, 5]) await store.append('s1', '1', event(seq));
      const reader = peer ?? store;
      assert.deepEqual(await reader.replayAfter('s1', '1', 2), [event(3), event(5)]);
      assert.deepEqual(await reader.replayAfter('s1', '1', 0), [event(1), event(2), event(3), event(5)]);
      assert.deepEqual(await reader.replayAfter('s1', '1', 5), []);
      assert.deepEqual(await reader.replayAfter('s1', 'unknown', 0), []);
    });

    it('a Last-Event-ID of another stream replays only that stream, never this one\'s events (stream confusion)', async () => {
      const { store } = await open(100);
      await store.append('s1', '1', event(1, 'post stream'));
      await store.append('s1', '0', event(1, 'standalone'));
      await store.append('s1', '1', event(2, 'post stream'));
      assert.deepEqual(await store.replayAfter('s1', '0', 0), [event(1, 'standalone')]);
      assert.deepEqual(await store.replayAfter('s1', '1', 0), [event(1, 'post stream'), event(2, 'post stream')]);
    });

    it('one session cannot replay another session\'s events (session isolation)', async () => {
      const { store } = await open(100);
      await store.append('victim', '1', event(1, 'private result'));
      assert.deepEqual(await store.replayAfter('attacker', '1', 0), []);
    });

    it('keeps at most the bound per session, dropping the oldest first across its streams', async () => {
      const { store } = await open(3);
      await store.append('s', '1', event(1));
      await store.append('s', '0', event(1));
      await store.append('s', '1', event(2));
      await store.append('s', '1', event(3));
      assert.deepEqual(await store.replayAfter('s', '1', 0), [event(2), event(3)]);
      assert.deepEqual(await store.replayAfter('s', '0', 0), [event(1)]);
      await store.append('s', '1', event(4));
      assert.deepEqual(await store.replayAfter('s', '0', 0), []);
    });

    it('forgets everything of a dropped session (DELETE)', async () => {
      const { store, peer } = await open(100);
      await store.append('s', '1', event(1));
      await store.append('s', '0', event(1));
      await store.append('kept', '1', event(1));
      await (peer ?? store).dropSession('s');
      assert.deepEqual(await store.replayAfter('s', '1', 0), []);
      assert.deepEqual(await store.replayAfter('s', '0', 0), []);
      assert.deepEqual(await store.replayAfter('kept', '1', 0), [event(1)]);
    });
  });
}

/** A single-use check as both interfaces have it: true when `value` is new. */
export type FirstUse = (value: string, expiresAt: number) => boolean | Promise<boolean>;

/** Runs the single-use contract (NonceStore.consume, DpopReplayCache.remember). */
export function singleUseContract(name: string, open: () => Promise<SharedStore<FirstUse>>, options: { readonly shared: boolean }): void {
  describe(`single-use contract: ${name}`, () => {
    const later = (): number => Date.now() + 60_000;

    it('accepts a value once; its replay before expiry is refused (replay attack)', async () => {
      const { store } = await open();
      assert.equal(await store('n-1', later()), true);
      assert.equal(await store('n-1', later()), false);
      assert.equal(await store('n-2', later()), true, 'another value is independent');
    });

    it('20 concurrent uses of one value: exactly one wins (racing replays)', async () => {
      const { store, peer } = await open();
      const users = [store, peer ?? store];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (users[i % 2] as FirstUse)('race', later())));
      assert.equal(results.filter(Boolean).length, 1);
    });

    if (options.shared) it('a value used on one instance is refused on every other (replay against another instance)', async () => {
      const { store, peer } = await open();
      if (peer === undefined) throw new Error(`${name} is shared: its harness must give a peer`);
      assert.equal(await store('shared', later()), true);
      assert.equal(await peer('shared', later()), false);
    });
  });
}

/**
 * Runs the DPoP nonce source contract (RFC 9449 section 9): `open(now)` yields a source on the
 * clock `now` rotating every 60 s (and, when shared, another instance's source on the same data).
 */
export function dpopNonceContract(name: string, open: (now: () => number) => Promise<SharedStore<DpopNonceSource>>, options: { readonly shared: boolean }): void {
  describe(`DPoP nonce contract: ${name}`, () => {
    it('accepts the nonce it hands out, and refuses a made-up one (nonce guessing)', async () => {
      const { store } = await open(Date.now);
      const nonce = await store.current();
      assert.match(nonce, /^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a nonce is 1*NQCHAR');
      assert.equal(await store.current(), nonce, 'the same nonce within a period');
      assert.equal(await store.accepts(nonce), true);
      assert.equal(await store.accepts(`${nonce}x`), false);
      assert.equal(await store.accepts('guessed'), false);
    });

    it('rotates: the previous nonce is still accepted for one period, then refused (pre-generated proofs)', async () => {
      let t = Date.now();
      const { store } = await open(() => t);
      const old = await store.current();
      t += 60_000;
      const next = await store.current();
      assert.notEqual(next, old);
      assert.equal(await store.accepts(old), true);
      t += 60_000;
      assert.equal(await store.accepts(old), false);
      assert.equal(await store.accepts(next), true);
    });

    if (options.shared) it('a nonce handed out by one instance is accepted by every other, which hands out the same one', async () => {
      const { store, peer } = await open(Date.now);
      if (peer === undefined) throw new Error(`${name} is shared: its harness must give a peer`);
      const nonce = await store.current();
      assert.equal(await peer.accepts(nonce), true);
      assert.equal(await peer.current(), nonce);
    });
  });
}
