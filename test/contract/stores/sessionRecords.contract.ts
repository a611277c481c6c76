/**
 * The contracts of the stores that let any instance serve a stateful (2025-11-25) session, run
 * by `sessionRecords.test.ts` against memory and Redis:
 *
 * - SessionStore: a record saved by one instance is loaded by another with every member
 *   (principal binding, version, the dispatcher's state); unknown, deleted and expired ids load
 *   nothing; `touch` extends a live record and reports a gone one.
 * - SessionBus: a message published for a session reaches the listeners of that session on
 *   every instance, never another session's; an unsubscribed listener hears nothing more.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionBus, SessionBusEnvelope, SessionRecord, SessionStore } from '../../../src/transport/http/server/sessionStore.js';
import type { SharedStore } from './sessionStores.contract.js';

const record = (id: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  principal: 'alice',
  version: '2025-11-25',
  state: { clientInfo: { name: 'c', version: '1' }, clientCapabilities: { elicitation: {} }, logLevel: 'info', subscriptions: ['file:///a'], initialized: true },
  createdAt: Date.now() - 1000,
  lastSeen: Date.now(),
  ...overrides,
});

/** Runs the SessionStore contract; `open(ttlMs)` yields a fresh store (and another instance's view of it). */
export function sessionStoreContract(name: string, open: (ttlMs: number) => Promise<SharedStore<SessionStore>>): void {
  describe(`SessionStore contract: ${name}`, () => {
    it('a record saved on one instance loads on another with every member', async () => {
      const { store, peer } = await open(60_000);
      const saved = record(globalThis.crypto.randomUUID());
      await store.save(saved);
      assert.deepEqual(await (peer ?? store).load(saved.id), saved);
    });

    it('keeps a null principal (no authentication) apart from any principal', async () => {
      const { store, peer } = await open(60_000);
      const saved = record(globalThis.crypto.randomUUID(), { principal: null });
      await store.save(saved);
      assert.equal((await (peer ?? store).load(saved.id))?.principal, null);
    });

    it('an id nobody saved loads nothing (forged session id)', async () => {
      const { store } = await open(60_000);
      assert.equal(await store.load(globalThis.crypto.randomUUID()), undefined);
      assert.equal(await store.touch(globalThis.crypto.randomUUID(), Date.now()), false);
    });

    it('one session\'s record is never returned for another id (session confusion)', async () => {
      const { store } = await open(60_000);
      const victim = record(globalThis.crypto.randomUUID());
      await store.save(victim);
      assert.equal(await store.load(`${victim.id}x`), undefined);
      assert.equal(await store.load(victim.id.slice(0, -1)), undefined);
    });

    it('a deleted record is gone on every instance (replay of a deleted session)', async () => {
      const { store, peer } = await open(60_000);
      const saved = record(globalThis.crypto.randomUUID());
      await store.save(saved);
      await (peer ?? store).delete(saved.id);
      assert.equal(await store.load(saved.id), undefined);
      assert.equal(await store.touch(saved.id, Date.now()), false);
    });

    it('a record last seen longer than the TTL ago is gone (expired session)', async () => {
      const { store } = await open(5_000);
      const stale = record(globalThis.crypto.randomUUID(), { lastSeen: Date.now() - 6_000 });
      await store.save(stale);
      assert.equal(await store.load(stale.id), undefined);
    });

    it('touch extends a live record and moves its last use forward, never back', async () => {
      const { store, peer } = await open(60_000);
      const saved = record(globalThis.crypto.randomUUID(), { lastSeen: Date.now() - 10_000 });
      await store.save(saved);
      const at = Date.now();
      assert.equal(await (peer ?? store).touch(saved.id, at), true);
      assert.equal((await store.load(saved.id))?.lastSeen, at);
      assert.equal(await store.touch(saved.id, at - 5_000), true);
      assert.equal((await store.load(saved.id))?.lastSeen, at);
    });

    it('save replaces the state (a change made on another instance)', async () => {
      const { store, peer } = await open(60_000);
      const saved = record(globalThis.crypto.randomUUID());
      await store.save(saved);
      const changed = { ...saved, state: { logLevel: 'error', initialized: true } };
      await (peer ?? store).save(changed);
      assert.deepEqual((await store.load(saved.id))?.state, { logLevel: 'error', initialized: true });
    });
  });
}

/** Runs the SessionBus contract; `open()` yields two instances' buses on the same channels. */
export function sessionBusContract(name: string, open: () => Promise<{ readonly a: SessionBus; readonly b: SessionBus }>): void {
  const next = (bus: SessionBus, session: string): Promise<{ envelope: Promise<SessionBusEnvelope>; stop: () => void }> =>
    new Promise((ready, fail) => {
      let resolve: (e: SessionBusEnvelope) => void = () => undefined;
      const envelope = new Promise<SessionBusEnvelope>((r) => (resolve = r));
      bus.subscribe(session, (e) => resolve(e)).then((stop) => ready({ envelope, stop }), fail);
    });

  describe(`SessionBus contract: ${name}`, () => {
    it('a message published on one instance reaches the session\'s listener on the other', async () => {
      const { a, b } = await open();
      const session = globalThis.crypto.randomUUID();
      const listening = await next(b, session);
      const sent: SessionBusEnvelope = { from: 'ainstanc', body: { kind: 'send', message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } } };
      await a.publish(session, sent);
      assert.deepEqual(await listening.envelope, sent);
      listening.stop();
    });

    it('another session\'s listener hears nothing (cross-session leak)', async () => {
      const { a, b } = await open();
      const [victim, attacker] = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
      const heard: SessionBusEnvelope[] = [];
      const stopAttacker = await b.subscribe(attacker, (e) => heard.push(e));
      const victimListener = await next(b, victim);
      await a.publish(victim, { from: 'ainstanc', body: { kind: 'answer', message: { jsonrpc: '2.0', id: 'x-1', result: { secret: true } } } });
      await victimListener.envelope;
      // The victim's message arrived; the same connection delivered nothing to the attacker's channel before it.
      assert.deepEqual(heard, []);
      stopAttacker();
      victimListener.stop();
    });

    it('an unsubscribed listener hears nothing more, while another listener of the session still does', async () => {
      const { a, b } = await open();
      const session = globalThis.crypto.randomUUID();
      const heard: SessionBusEnvelope[] = [];
      const stop = await b.subscribe(session, (e) => heard.push(e));
      stop();
      const still = await next(b, session);
      await a.publish(session, { from: 'ainstanc', body: { kind: 'end' } });
      await still.envelope;
      assert.deepEqual(heard, []);
      still.stop();
    });
  });
}
