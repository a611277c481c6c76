/**
 * The per-user connection-store contract (issue #34), run by `connectionStore.test.ts` against
 * SQLite (two stores on one file = two processes on one machine) and PostgreSQL (two pools = two
 * gateway instances): round trips, revocation, a token-free list, single-use sign-ins, the
 * single-flight refresh and first connection across instances, and the attacks on the data at rest (a row moved to
 * another principal, a flipped byte, another deployment's key, a replayed or late `state`).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @see https://datatracker.ietf.org/doc/html/rfc6749#section-10.12
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { TokenSet } from '../../../src/auth/client/tokenStore.js';
import type { Connection, ConnectionStore, PendingSignIn } from '../../../src/host/connections.js';
import { ConnectionSealError } from '../../../src/store/connectionSealer.js';

const T = { timeout: 20_000 };

/** One backing store (a fresh, empty one per {@link ConnectionBackend.open}) and ways into its raw rows. */
export interface OpenedBackend {
  /** A store instance (an instance of the gateway) with the deployment's key. */
  instance(key?: Uint8Array): Promise<ConnectionStore>;
  /** The deployment's key. */
  readonly key: Uint8Array;
  /** Every byte of both tables, as text (what a database dump shows). */
  dump(): Promise<string>;
  /** Copies the sealed tokens of (principal, server) `from` onto the row of `to` (an attacker with write access to the database). */
  copySealed(from: readonly [string, string], to: readonly [string, string]): Promise<void>;
  /** Flips one byte of the sealed tokens of (principal, server) at `offset` from the end. */
  flipByte(key: readonly [string, string], offsetFromEnd: number): Promise<void>;
  /** Copies the sealed sign-in of state `from` onto the row of state `to`. */
  copyPending(from: string, to: string): Promise<void>;
  /** How many pending sign-in rows there are. */
  pendingRows(): Promise<number>;
}

/** How to open a fresh backend. */
export type ConnectionBackend = () => Promise<OpenedBackend>;

const S = 'https://mcp.example.com/mcp';
const S2 = 'https://other.example.com/mcp';

/** A token set with recognisable secrets. */
export function tokens(tag: string): TokenSet {
  return {
    accessToken: `AT-${tag}-${randomBytes(6).toString('hex')}`,
    tokenType: 'Bearer',
    expiresAt: 1_900_000_000_000,
    refreshToken: `RT-${tag}-${randomBytes(6).toString('hex')}`,
    grantedScope: 'repo read:user',
    requestedScopes: ['repo'],
    issuer: 'https://as.example.com',
    resource: S,
  };
}

/** A connection of `principal` at `server`. */
export function connection(principal: string, server = S, createdAt = 1_000): Connection {
  return { principal, server, serverId: server === S ? 'github' : 'other', tenant: 'acme', mode: 'per-user', tokens: tokens(principal), createdAt, updatedAt: createdAt };
}

function pending(state: string, principal: string, expiresAt: number): PendingSignIn {
  return { state, principal, server: S, serverId: 'github', codeVerifier: `verifier-${randomBytes(16).toString('hex')}`, redirectUri: 'https://gw.example.com/oauth/callback', issuer: 'https://as.example.com', requestedScopes: ['repo'], expiresAt };
}

/** A refresh held until `release()`: `running` resolves once it started; `runs` counts its calls. */
function heldRefresh(result: TokenSet): { readonly refresh: (current: Connection) => Promise<TokenSet>; readonly running: Promise<void>; release(): void; runs(): number; seen(): Connection[] } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const seen: Connection[] = [];
  return {
    refresh: async (current) => {
      seen.push(current);
      started();
      await gate;
      return result;
    },
    running,
    release: () => release(),
    runs: () => seen.length,
    seen: () => seen,
  };
}

/** A first connection held until `release()` (see {@link heldRefresh}). */
function heldConnect(made: Connection): { readonly connect: () => Promise<Connection>; readonly running: Promise<void>; release(): void; runs(): number } {
  const held = heldRefresh(made.tokens);
  return { connect: async () => ({ ...made, tokens: await held.refresh(made) }), running: held.running, release: () => held.release(), runs: () => held.runs() };
}

/** Two instances on one fresh backend, alice connected at S. */
async function aliceOnTwoInstances(backend: ConnectionBackend): Promise<{ one: ConnectionStore; two: ConnectionStore; alice: Connection; key: { principal: string; server: string } }> {
  const b = await backend();
  const [one, two] = [await b.instance(), await b.instance()];
  const alice = connection('alice');
  await one.put(alice);
  return { one, two, alice, key: { principal: 'alice', server: S } };
}

const sealError = (reason: string) => (error: unknown) => error instanceof ConnectionSealError && error.reason === reason;

/** Runs the contract. */
export function connectionStoreContract(name: string, backend: ConnectionBackend): void {
  describe(`connection store contract: ${name}`, () => {
    it('round-trips a connection; another instance reads the same; put replaces', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const alice = connection('alice');
      assert.equal(await one.get({ principal: 'alice', server: S }), undefined);
      await one.put(alice);
      assert.deepEqual(await two.get({ principal: 'alice', server: S }), alice);
      const next = { ...alice, tokens: tokens('alice2'), updatedAt: 2_000 };
      await two.put(next);
      assert.deepEqual(await one.get({ principal: 'alice', server: S }), next);
      assert.equal(await one.get({ principal: 'alice', server: S2 }), undefined);
      assert.equal(await one.get({ principal: 'bob', server: S }), undefined);
    });

    it('lists summaries, oldest first, filtered by principal and server', T, async () => {
      const b = await backend();
      const store = await b.instance();
      await store.put(connection('bob', S, 3_000));
      await store.put(connection('alice', S2, 2_000));
      await store.put(connection('alice', S, 1_000));
      const all = await store.list();
      assert.deepEqual(
        all.map((c) => [c.principal, c.server]),
        [
          ['alice', S],
          ['alice', S2],
          ['bob', S],
        ],
      );
      assert.deepEqual(all[0], {
        principal: 'alice',
        server: S,
        serverId: 'github',
        tenant: 'acme',
        mode: 'per-user',
        scopes: ['repo', 'read:user'],
        issuer: 'https://as.example.com',
        expiresAt: 1_900_000_000_000,
        refreshable: true,
        createdAt: 1_000,
        updatedAt: 1_000,
      });
      assert.deepEqual((await store.list({ principal: 'alice' })).map((c) => c.server), [S, S2]);
      assert.deepEqual((await store.list({ server: S })).map((c) => c.principal), ['alice', 'bob']);
      assert.deepEqual((await store.list({ principal: 'bob', server: S2 })).length, 0);
    });

    it('list-never-prints-tokens: no access token, refresh token or sealed byte in what list returns', T, async () => {
      const b = await backend();
      const store = await b.instance();
      const conns = [connection('alice'), connection('bob', S2)];
      for (const c of conns) await store.put(c);
      const text = JSON.stringify(await store.list());
      for (const c of conns) {
        assert.ok(!text.includes(c.tokens.accessToken), 'an access token is in the list');
        assert.ok(!text.includes(c.tokens.refreshToken as string), 'a refresh token is in the list');
      }
      assert.doesNotMatch(text, /AT-|RT-|accessToken|refreshToken|sealed/);
    });

    it('database-dump-reveals-no-secret: tokens, PKCE verifier and state are not in the rows in the clear', T, async () => {
      const b = await backend();
      const store = await b.instance();
      const c = connection('alice');
      await store.put(c);
      const state = `state-${randomBytes(12).toString('hex')}`;
      const p = pending(state, 'alice', Date.now() + 60_000);
      await store.beginSignIn(p);
      const dump = await b.dump();
      for (const secret of [c.tokens.accessToken, c.tokens.refreshToken as string, p.codeVerifier, state]) assert.ok(!dump.includes(secret), `${secret.slice(0, 6)}… is in the database in the clear`);
    });

    it('revokes per user, per server, and one user at one server; refuses an empty filter', T, async () => {
      const b = await backend();
      const store = await b.instance();
      for (const c of [connection('alice'), connection('alice', S2), connection('bob'), connection('bob', S2), connection('carol')]) await store.put(c);
      assert.equal(await store.revoke({ principal: 'alice', server: S2 }), 1);
      assert.equal(await store.revoke({ server: S }), 3);
      assert.deepEqual((await store.list()).map((c) => [c.principal, c.server]), [['bob', S2]]);
      assert.equal(await store.revoke({ principal: 'bob' }), 1);
      assert.equal(await store.revoke({ principal: 'nobody' }), 0);
      await assert.rejects(store.revoke({}), TypeError);
      assert.equal(await store.get({ principal: 'bob', server: S2 }), undefined);
    });

    it('take removes like revoke and hands back the removed connections (tokens opened), each row to one of two instances revoking at once', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const alice = connection('alice');
      for (const c of [alice, connection('alice', S2), connection('bob')]) await one.put(c);
      const [a, c] = await Promise.all([one.take({ principal: 'alice' }), two.take({ principal: 'alice' })]);
      const taken = [...a, ...c];
      assert.deepEqual(taken.map((t) => t.summary.server).sort(), [S, S2].sort(), 'each row taken once');
      assert.deepEqual(taken.find((t) => t.summary.server === S)?.connection, alice);
      assert.deepEqual((await one.list()).map((x) => x.principal), ['bob']);
      await assert.rejects(one.take({}), TypeError);
    });

    it('take under another key still removes the row, with why its tokens did not open', T, async () => {
      const b = await backend();
      await (await b.instance()).put(connection('alice'));
      const other = await b.instance(randomBytes(32));
      const [taken] = await other.take({ principal: 'alice' });
      assert.equal(taken?.connection, undefined);
      assert.match(taken?.unreadable ?? '', /key/);
      assert.deepEqual(await other.list(), []);
    });

    it('row-swap-to-another-principal: alice\'s sealed tokens copied onto mallory\'s row do not open; mallory gets no token', T, async () => {
      const b = await backend();
      const store = await b.instance();
      const alice = connection('alice');
      await store.put(alice);
      await store.put(connection('mallory'));
      await store.put(connection('mallory', S2));
      await b.copySealed(['alice', S], ['mallory', S]);
      await assert.rejects(store.get({ principal: 'mallory', server: S }), sealError('tampered'));
      // And onto another server of the same principal (tokens for S presented to S2).
      await b.copySealed(['alice', S], ['mallory', S2]);
      await assert.rejects(store.get({ principal: 'mallory', server: S2 }), sealError('tampered'));
      await assert.rejects(
        store.refreshOnce({ principal: 'mallory', server: S }, alice.tokens.accessToken, () => Promise.reject(new Error('must not refresh'))),
        sealError('tampered'),
      );
      assert.deepEqual(await store.get({ principal: 'alice', server: S }), alice);
    });

    it('tampered-ciphertext: a flipped byte in the ciphertext or the tag is refused, never other tokens', T, async () => {
      const b = await backend();
      const store = await b.instance();
      await store.put(connection('alice'));
      await store.put(connection('bob'));
      await b.flipByte(['alice', S], 30); // ciphertext
      await assert.rejects(store.get({ principal: 'alice', server: S }), sealError('tampered'));
      await b.flipByte(['bob', S], 1); // tag
      await assert.rejects(store.get({ principal: 'bob', server: S }), sealError('tampered'));
    });

    it('wrong-key: an instance with another key gets a typed error naming both key ids, no tokens', T, async () => {
      const b = await backend();
      const alice = connection('alice');
      await (await b.instance()).put(alice);
      const other = await b.instance(randomBytes(32));
      const error = await other.get({ principal: 'alice', server: S }).then(
        () => assert.fail('opened under the wrong key'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ConnectionSealError && error.reason === 'wrong-key', String(error));
      assert.equal(error.code, 'ERR_MCP_STORE_CORRUPT');
      assert.match(error.message, /sealed with the connections key [0-9a-f]{16}, and this gateway has the key [0-9a-f]{16}/);
      assert.ok(!error.message.includes(alice.tokens.accessToken));
      // Listing needs no key: the admin still sees who is connected (and can revoke).
      assert.equal((await other.list()).length, 1);
    });

    it('takes a pending sign-in once, with everything it was bound to', T, async () => {
      const b = await backend();
      const store = await b.instance();
      const p = pending('s-1', 'alice', Date.now() + 60_000);
      await store.beginSignIn(p);
      assert.deepEqual(await store.takeSignIn('s-1', Date.now()), p);
    });

    it('pending-sign-in-replay: a state taken twice, or by two instances at once, is answered once', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      await one.beginSignIn(pending('s-replay', 'alice', Date.now() + 60_000));
      assert.notEqual(await one.takeSignIn('s-replay', Date.now()), undefined);
      assert.equal(await one.takeSignIn('s-replay', Date.now()), undefined);
      assert.equal(await two.takeSignIn('s-replay', Date.now()), undefined);
      await one.beginSignIn(pending('s-race', 'alice', Date.now() + 60_000));
      const answers = await Promise.all([...Array(10).keys()].map((i) => (i % 2 === 0 ? one : two).takeSignIn('s-race', Date.now())));
      assert.equal(answers.filter((a) => a !== undefined).length, 1);
      assert.equal(await one.takeSignIn('unknown-state', Date.now()), undefined);
    });

    it('expired-sign-in: a late callback gets nothing, and expired rows are deleted', T, async () => {
      const b = await backend();
      const store = await b.instance();
      const now = Date.now();
      await store.beginSignIn(pending('s-late', 'alice', now + 1_000));
      assert.equal(await store.takeSignIn('s-late', now + 1_000), undefined);
      await store.beginSignIn(pending('s-old-1', 'bob', now - 1));
      await store.beginSignIn(pending('s-old-2', 'bob', now - 1));
      await store.beginSignIn(pending('s-live', 'carol', now + 60_000));
      assert.equal(await b.pendingRows(), 1, 'the expired sign-ins are still stored');
    });

    it('sign-in-state-swap: a sealed sign-in moved under another state does not open', T, async () => {
      const b = await backend();
      const store = await b.instance();
      await store.beginSignIn(pending('s-victim', 'victim', Date.now() + 60_000));
      await store.beginSignIn(pending('s-attacker', 'attacker', Date.now() + 60_000));
      await b.copyPending('s-victim', 's-attacker');
      await assert.rejects(store.takeSignIn('s-attacker', Date.now()), sealError('tampered'));
    });

    it('refreshes once across two instances under 20 concurrent calls; all get the same tokens', T, async () => {
      const { one, two, alice, key } = await aliceOnTwoInstances(backend);
      const fresh = tokens('fresh');
      const held = heldRefresh(fresh);
      const calls = [...Array(20).keys()].map((i) => (i % 2 === 0 ? one : two).refreshOnce(key, alice.tokens.accessToken, held.refresh));
      await held.running;
      held.release();
      const results = await Promise.all(calls);
      assert.equal(held.runs(), 1, `the refresh ran ${held.runs()} times`);
      assert.equal(held.seen()[0]?.tokens.accessToken, alice.tokens.accessToken);
      for (const r of results) assert.deepEqual(r?.tokens, fresh);
      assert.deepEqual((await two.get(key))?.tokens, fresh);
      // A late caller with the old token gets the stored one without refreshing.
      const late = await two.refreshOnce(key, alice.tokens.accessToken, () => Promise.reject(new Error('must not refresh again')));
      assert.deepEqual(late?.tokens, fresh);
      assert.equal(await one.refreshOnce({ principal: 'nobody', server: S }, 'x', () => Promise.reject(new Error('no row'))), undefined);
    });

    it('a failed refresh reaches every waiter and leaves the connection as it was; the next one runs', T, async () => {
      const { one, two, alice, key } = await aliceOnTwoInstances(backend);
      let runs = 0;
      const failing = async (): Promise<TokenSet> => {
        runs++;
        await Promise.resolve();
        throw new Error('invalid_grant');
      };
      const settled = await Promise.allSettled([one.refreshOnce(key, alice.tokens.accessToken, failing), one.refreshOnce(key, alice.tokens.accessToken, failing)]);
      assert.equal(runs, 1);
      for (const s of settled) assert.ok(s.status === 'rejected' && (s.reason as Error).message === 'invalid_grant');
      assert.deepEqual(await one.get(key), alice);
      const fresh = tokens('after');
      assert.deepEqual((await two.refreshOnce(key, alice.tokens.accessToken, () => Promise.resolve(fresh)))?.tokens, fresh);
    });

    it('revoke-during-refresh: a connection revoked while its refresh runs stays revoked', T, async () => {
      const { one, two, alice, key } = await aliceOnTwoInstances(backend);
      const held = heldRefresh(tokens('resurrected'));
      const refreshing = one.refreshOnce(key, alice.tokens.accessToken, held.refresh);
      await held.running;
      const revoked = two.revoke({ principal: 'alice' });
      held.release();
      assert.equal(await revoked, 1);
      await refreshing; // SQLite: undefined (the write finds no row); PostgreSQL: the revoke waited for the row lock
      assert.equal(await two.get(key), undefined);
      assert.equal((await two.list()).length, 0);
    });

    it('makes a first connection once across two instances under 20 concurrent calls; all get it', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const key = { principal: 'alice', server: S };
      const made = { ...connection('alice'), mode: 'token-exchange' as const };
      const held = heldConnect(made);
      const calls = [...Array(20).keys()].map((i) => (i % 2 === 0 ? one : two).connectOnce(key, held.connect));
      await held.running;
      held.release();
      const results = await Promise.all(calls);
      assert.equal(held.runs(), 1, `the first connection was made ${held.runs()} times`);
      for (const r of results) assert.deepEqual(r, made);
      assert.deepEqual(await two.get(key), made);
      // Once there is one, it is answered without connecting.
      assert.deepEqual(await one.connectOnce(key, () => Promise.reject(new Error('must not connect again'))), made);
      assert.deepEqual(await two.connectOnce(key, () => Promise.reject(new Error('must not connect again'))), made);
    });

    it('a failed first connection reaches its waiters and stores nothing; the next one (on either instance) runs', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const key = { principal: 'alice', server: S };
      let runs = 0;
      const failing = async (): Promise<Connection> => {
        runs++;
        await Promise.resolve();
        throw new Error('invalid_grant');
      };
      const settled = await Promise.allSettled([one.connectOnce(key, failing), one.connectOnce(key, failing)]);
      assert.equal(runs, 1);
      for (const s of settled) assert.ok(s.status === 'rejected' && (s.reason as Error).message === 'invalid_grant');
      assert.equal(await two.get(key), undefined);
      const made = connection('alice');
      assert.deepEqual(await two.connectOnce(key, () => Promise.resolve(made)), made);
      assert.deepEqual(await one.get(key), made);
    });

    it('sign-in-overwritten-by-exchange: a connection a sign-in stored while a first connection ran is kept', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const key = { principal: 'alice', server: S };
      const held = heldConnect({ ...connection('alice'), mode: 'token-exchange' });
      const connecting = one.connectOnce(key, held.connect);
      await held.running;
      const signedIn = connection('alice', S, 5_000);
      await two.put(signedIn);
      held.release();
      assert.deepEqual(await connecting, signedIn);
      assert.deepEqual(await one.get(key), signedIn);
    });

    it('connection-under-another-key: a first connection made for another principal is refused and not stored', T, async () => {
      const b = await backend();
      const store = await b.instance();
      await assert.rejects(store.connectOnce({ principal: 'alice', server: S }, () => Promise.resolve(connection('mallory'))), TypeError);
      await assert.rejects(store.connectOnce({ principal: 'alice', server: S }, () => Promise.resolve(connection('alice', S2))), TypeError);
      assert.deepEqual(await store.list(), []);
      // The lease of the refused one is gone: the next first connection runs at once.
      const made = connection('alice');
      assert.deepEqual(await store.connectOnce({ principal: 'alice', server: S }, () => Promise.resolve(made)), made);
    });
  });
}
