/**
 * The consent store contracts, run by `consentStores.test.ts` against every implementation:
 *
 * - **Grant store** (memory, SQLite, PostgreSQL): kept approvals round-trip exactly, expire,
 *   are revoked, are seen by a second instance on the same data, and a damaged record is
 *   dropped rather than trusted.
 * - **Consent queue** (one local queue; two queues on one PostgreSQL schema, as two gateway
 *   instances): an answer given through the other instance answers the call waiting on this
 *   one; the first answer wins and a second is refused; an answer to a request nobody waits
 *   for any more, or that never existed, is refused, never applied to a later call.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsentGrant, ConsentGrantStore } from '../../../src/host/consent/consentGrants.js';
import type { ConsentQueue } from '../../../src/host/consent/consentQueue.js';
import type { ConsentAnswer, ConsentRequest } from '../../../src/host/consent/consentTypes.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';

/** A grant store, and a second instance on the same data. */
export interface GrantStoreHarness {
  readonly store: ConsentGrantStore;
  readonly peer: ConsentGrantStore;
  /** Overwrites the stored record of `id` with something that is not a grant; undefined for memory (no record to damage). */
  readonly corrupt?: (id: string) => Promise<void>;
}

let serial = 0;
/** A sample grant (`tool` scope until `expiresAt`). */
export function sampleGrant(over: Partial<ConsentGrant> = {}): ConsentGrant {
  return {
    id: `g-${++serial}-${Math.random().toString(36).slice(2)}`,
    createdAt: '2026-12-01T10:00:00.000Z',
    approver: 'admin-token',
    mediated: 'person',
    scope: { match: 'tool', duration: 'until', expiresAt: '2100-01-01T00:00:00.000Z' },
    serverIdentity: 'http:https://mail.example/mcp',
    tool: 'send',
    definitionDigest: 'sha256:aa',
    principal: 'alice',
    expiresAt: '2100-01-01T00:00:00.000Z',
    ...over,
  };
}

/** Runs the grant-store contract (a fresh, empty store per test). */
export function grantStoreContract(name: string, open: () => Promise<GrantStoreHarness>, options: { readonly persistent: boolean }): void {
  describe(`ConsentGrantStore contract: ${name}`, () => {
    it('round-trips grants exactly, in the order given, and revokes by id', async () => {
      const { store } = await open();
      const a = sampleGrant();
      const b = sampleGrant({ scope: { match: 'pattern', duration: 'session', patterns: { to: '*@example.com' } }, fixedArguments: { body: 'sha256:bb' }, session: 's-1', tool: 'ünïcødé ✓' });
      await store.add(a);
      await store.add(b);
      assert.deepEqual(await store.list(Date.now()), [a, b]);
      assert.equal(await store.revoke(a.id), true);
      assert.equal(await store.revoke(a.id), false, 'a second revocation finds nothing');
      assert.deepEqual(await store.list(Date.now()), [b]);
    });

    it('an expired grant is never listed again (an approval outliving its expiry)', async () => {
      const { store } = await open();
      const soon = sampleGrant({ expiresAt: '2026-12-01T10:05:00.000Z', scope: { match: 'tool', duration: 'until', expiresAt: '2026-12-01T10:05:00.000Z' } });
      await store.add(soon);
      assert.deepEqual(await store.list(Date.parse('2026-12-01T10:04:59Z')), [soon]);
      assert.deepEqual(await store.list(Date.parse('2026-12-01T10:05:00Z')), []);
      assert.deepEqual(await store.list(Date.parse('2026-12-01T10:04:00Z')), [], 'deleted, not only hidden');
    });

    it("a grant made or revoked through one instance is the other's at once (no stale approval)", async () => {
      const { store, peer } = await open();
      const g = sampleGrant();
      await store.add(g);
      assert.deepEqual(await peer.list(Date.now()), [g]);
      assert.equal(await peer.revoke(g.id), true);
      assert.deepEqual(await store.list(Date.now()), []);
    });

    if (!options.persistent) return;
    it('a damaged grant record is dropped, not trusted (tampered store)', async () => {
      const { store, corrupt } = await open();
      assert.ok(corrupt !== undefined, 'a persistent store names how to damage its record');
      const bad = sampleGrant();
      const good = sampleGrant();
      await store.add(bad);
      await store.add(good);
      await corrupt(bad.id);
      assert.deepEqual(await store.list(Date.now()), [good]);
    });
  });
}

/** Two queues on the same requests (one queue twice when there is no sharing). */
export interface QueueHarness {
  /** Where the call waits. */
  readonly asker: ConsentQueue;
  /** Where a person answers. */
  readonly answerer: ConsentQueue;
}

/** A request waiting for a minute. */
export function sampleRequest(over: Partial<ConsentRequest> = {}): ConsentRequest {
  const now = Date.now();
  return {
    id: `r-${++serial}-${Math.random().toString(36).slice(2)}`,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 60_000).toISOString(),
    method: 'tools/call',
    server: { id: 'mail', identity: 'http:https://mail.example/mcp' },
    tool: 'send',
    arguments: { to: 'bob@example.com' },
    reasons: ['egress after private data'],
    principal: 'alice',
    binding: { serverIdentity: 'http:https://mail.example/mcp', tool: 'send', definitionDigest: 'sha256:aa', argumentsDigest: 'sha256:bb' },
    ...over,
  };
}

const APPROVE: ConsentAnswer = { approved: true, scope: { match: 'call', duration: 'once' }, approver: 'admin-token', mediated: 'person' };
const DENY: ConsentAnswer = { approved: false, reason: 'not today', approver: 'admin-token', mediated: 'person' };

/** Resolves once `queue` sees request `id` waiting (its `request` event, or at once). */
export function seen(queue: ConsentQueue, id: string): Promise<void> {
  return new Promise((resolve) => {
    const off = queue.subscribe((e) => {
      if (e.type === 'request' && e.request.id === id) {
        off();
        resolve();
      }
    });
    if (queue.get(id) !== undefined) {
      off();
      resolve();
    }
  });
}

/** Resolves once `queue` no longer has request `id`. */
function gone(queue: ConsentQueue, id: string): Promise<void> {
  return new Promise((resolve) => {
    const off = queue.subscribe(() => {
      if (queue.get(id) === undefined) {
        off();
        resolve();
      }
    });
    if (queue.get(id) === undefined) {
      off();
      resolve();
    }
  });
}

const waitingGone = (error: unknown): boolean => isMcpError(error, McpErrorCode.InvalidArgument) && /is waiting/.test(error.message);

/** Runs the queue contract. */
export function consentQueueContract(name: string, open: () => Promise<QueueHarness>): void {
  describe(`ConsentQueue contract: ${name}`, () => {
    it('an approval given through the other instance answers the waiting call within a second', async () => {
      const { asker, answerer } = await open();
      const request = sampleRequest();
      const asked = asker.ask(request, { signal: new AbortController().signal });
      await seen(answerer, request.id);
      assert.deepEqual(answerer.get(request.id), request, 'the person sees the request in full');
      const t0 = performance.now();
      await answerer.answer(request.id, APPROVE);
      assert.deepEqual(await asked, APPROVE);
      assert.ok(performance.now() - t0 < 1000, 'delivered within a second');
      assert.equal(asker.get(request.id), undefined);
      await gone(answerer, request.id);
    });

    it('a denial given through the other instance denies the waiting call', async () => {
      const { asker, answerer } = await open();
      const request = sampleRequest();
      const asked = asker.ask(request, { signal: new AbortController().signal });
      await seen(answerer, request.id);
      await answerer.answer(request.id, DENY);
      assert.deepEqual(await asked, DENY);
    });

    it('two people answering at once: the first answer wins, the second is refused (no double decision)', async () => {
      const { asker, answerer } = await open();
      const request = sampleRequest();
      const asked = asker.ask(request, { signal: new AbortController().signal });
      await seen(answerer, request.id);
      const results = await Promise.allSettled([answerer.answer(request.id, APPROVE), asker.answer(request.id, DENY)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, 'exactly one answer applied');
      const lost = results.find((r) => r.status === 'rejected');
      assert.ok(lost !== undefined && waitingGone(lost.reason), String(lost?.status === 'rejected' ? lost.reason : ''));
      assert.deepEqual(await asked, results[0]?.status === 'fulfilled' ? APPROVE : DENY);
    });

    it('a late approval after the call gave up is refused, never applied to a later call', async () => {
      const { asker, answerer } = await open();
      const request = sampleRequest();
      const stop = new AbortController();
      const asked = asker.ask(request, { signal: stop.signal });
      await seen(answerer, request.id);
      stop.abort(new Error('timed out'));
      await assert.rejects(asked);
      await gone(answerer, request.id);
      await assert.rejects(answerer.answer(request.id, APPROVE), waitingGone);
    });

    it('an answer to a request id that never existed is refused (guessed id)', async () => {
      const { answerer } = await open();
      await assert.rejects(answerer.answer('r-never-asked', APPROVE), waitingGone);
    });

    it('an approval whose scope cannot be honoured is refused on the answering instance, and the call still waits', async () => {
      const { asker, answerer } = await open();
      const request = sampleRequest();
      const stop = new AbortController();
      const asked = asker.ask(request, { signal: stop.signal });
      await seen(answerer, request.id);
      const past = { ...APPROVE, scope: { match: 'tool', duration: 'until', expiresAt: '2000-01-01T00:00:00Z' } } as ConsentAnswer;
      await assert.rejects(answerer.answer(request.id, past), (e: unknown) => isMcpError(e, McpErrorCode.InvalidArgument) && /already past/.test(e.message));
      assert.deepEqual(answerer.get(request.id), request);
      await answerer.answer(request.id, DENY);
      assert.deepEqual(await asked, DENY);
    });
  });
}
