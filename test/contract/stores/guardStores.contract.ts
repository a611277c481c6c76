/**
 * The contracts of the guard's counters, run by `guardStores.test.ts` against memory and Redis:
 *
 * - RateLimitStore: a token bucket of capacity `max` refilled at `max / perMs` (frozen clocks),
 *   atomic per key under concurrent takes, and, for a shared store, one bucket for every
 *   instance (a limit per principal, not per instance).
 * - ConcurrencyStore: at most `max` slots per key, atomic under concurrent acquires, released
 *   once, and shared across instances for a shared store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConcurrencyStore, RateLimitRule, RateLimitStore } from '../../../src/host/guards.js';

/** A store and, for a shared one, another instance's view of the same counters. */
export interface Shared<T> {
  readonly store: T;
  /** Another instance on the same data; undefined for an in-process store. */
  readonly peer?: T;
}

const rule = (max: number, perMs: number): RateLimitRule => ({ by: ['principal'], max, perMs });

/** Runs the RateLimitStore contract (a fresh, empty store per test). */
export function rateLimitStoreContract(name: string, open: () => Promise<Shared<RateLimitStore>>, options: { readonly shared: boolean }): void {
  describe(`RateLimitStore contract: ${name}`, () => {
    it('allows max calls, then refuses with the time until the next token', async () => {
      const { store } = await open();
      const r = rule(3, 3000);
      for (let i = 0; i < 3; i++) assert.deepEqual(await store.take('k', r, 10_000), { allowed: true, retryAfterMs: 0 });
      assert.deepEqual(await store.take('k', r, 10_000), { allowed: false, retryAfterMs: 1000 });
      assert.deepEqual(await store.take('k', r, 10_400), { allowed: false, retryAfterMs: 600 });
    });

    it('refills continuously, never above capacity', async () => {
      const { store } = await open();
      const r = rule(2, 1000);
      await store.take('k', r, 0);
      await store.take('k', r, 0);
      assert.equal((await store.take('k', r, 499)).allowed, false);
      assert.equal((await store.take('k', r, 1000)).allowed, true, 'half a window later one token is back');
      // A long idle time refills to max, not beyond.
      assert.equal((await store.take('k', r, 1_000_000)).allowed, true);
      assert.equal((await store.take('k', r, 1_000_000)).allowed, true);
      assert.equal((await store.take('k', r, 1_000_000)).allowed, false);
    });

    it('keys are separate buckets: one caller draining theirs does not touch another\'s', async () => {
      const { store } = await open();
      const r = rule(1, 60_000);
      assert.equal((await store.take('principal=mallory', r, 0)).allowed, true);
      assert.equal((await store.take('principal=mallory', r, 0)).allowed, false);
      assert.equal((await store.take('principal=alice', r, 0)).allowed, true);
    });

    it('a burst of 50 concurrent calls against a limit of 10 gets exactly 10 through (no race past the limit)', async () => {
      const { store, peer } = await open();
      const r = rule(10, 60_000);
      const takers = [store, peer ?? store];
      const verdicts = await Promise.all(Array.from({ length: 50 }, (_, i) => (takers[i % 2] as RateLimitStore).take('burst', r, 5)));
      assert.equal(verdicts.filter((v) => v.allowed).length, 10);
    });

    if (options.shared) it('spreading calls over instances does not multiply the limit (one bucket per principal across instances)', async () => {
      const { store, peer } = await open();
      if (peer === undefined) throw new Error(`${name} is shared: its harness must give a peer`);
      const r = rule(4, 60_000);
      const verdicts = [];
      for (let i = 0; i < 8; i++) verdicts.push((await (i % 2 === 0 ? store : peer).take('principal=mallory', r, 0)).allowed);
      assert.deepEqual(verdicts, [true, true, true, true, false, false, false, false]);
    });
  });
}

/** Runs the ConcurrencyStore contract (a fresh, empty store per test). */
export function concurrencyStoreContract(name: string, open: () => Promise<Shared<ConcurrencyStore>>): void {
  describe(`ConcurrencyStore contract: ${name}`, () => {
    it('grants max slots, refuses the next with the count in flight, and a release frees one', async () => {
      const { store } = await open();
      const a = await store.acquire('principal=p', 2, 0);
      const b = await store.acquire('principal=p', 2, 0);
      assert.equal(a.allowed && b.allowed, true);
      assert.deepEqual(await store.acquire('principal=p', 2, 0), { allowed: false, inFlight: 2 });
      assert.equal((await store.acquire('principal=other', 2, 0)).allowed, true, 'another key has its own slots');
      if (a.allowed) await a.release();
      const c = await store.acquire('principal=p', 2, 0);
      assert.equal(c.allowed, true);
    });

    it('releasing twice frees one slot, not two (a double release cannot raise the cap)', async () => {
      const { store } = await open();
      const a = await store.acquire('k', 1, 0);
      assert.ok(a.allowed);
      await a.release();
      await a.release();
      const b = await store.acquire('k', 1, 0);
      assert.ok(b.allowed);
      assert.equal((await store.acquire('k', 1, 0)).allowed, false);
    });

    it('40 concurrent acquires against a cap of 5 (over every instance) get exactly 5 slots', async () => {
      const { store, peer } = await open();
      const stores = [store, peer ?? store];
      const grants = await Promise.all(Array.from({ length: 40 }, (_, i) => (stores[i % 2] as ConcurrencyStore).acquire('burst', 5, 0)));
      assert.equal(grants.filter((g) => g.allowed).length, 5);
      for (const g of grants) if (g.allowed) await g.release();
      assert.equal((await store.acquire('burst', 5, 0)).allowed, true);
    });
  });
}
