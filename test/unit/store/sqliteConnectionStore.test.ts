// What only the SQLite connection store has (the shared contract is in
// test/contract/stores/connectionStore.contract.ts): its file (mode 0600, a newer schema or a
// damaged file refused, a version-1 file upgraded in place), and the refresh (and first-connection)
// lease of a process that died mid-refresh lapsing, so another process takes over instead of waiting forever.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { TokenSet } from '../../../src/auth/client/tokenStore.js';
import type { Connection } from '../../../src/host/connections.js';
import { ConnectionSealer } from '../../../src/store/connectionSealer.js';
import { CONNECTIONS_DB_FILE, openSqliteConnectionStore, SqliteConnectionStore } from '../../../src/store/sqliteConnectionStore.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import { connection, tokens } from '../../contract/stores/connectionStore.contract.js';

const T = { timeout: 10_000 };
const dir = mkdtempSync(join(tmpdir(), 'sb-sqlite-connections-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const sealer = ConnectionSealer.fromKey(randomBytes(32));

describe('SqliteConnectionStore', () => {
  it('creates connections.db with mode 0600 in a 0700 state folder', T, async () => {
    const state = join(dir, `state-${n++}`);
    const store = openSqliteConnectionStore(state, sealer);
    await store.close();
    assert.equal(statSync(join(state, CONNECTIONS_DB_FILE)).mode & 0o777, 0o600);
    assert.equal(statSync(state).mode & 0o777, 0o700);
  });

  it('refuses a file of a newer schema, and a file that is not a database (ERR_MCP_STORE_CORRUPT)', T, () => {
    const newer = join(dir, `newer-${n++}.db`);
    const db = new Database(newer);
    db.pragma('user_version = 99');
    db.close();
    assert.throws(() => SqliteConnectionStore.open(newer, sealer), (e: unknown) => isMcpError(e, McpErrorCode.StoreCorrupt) && /newer Switchboard/.test(e.message));
    const junk = join(dir, `junk-${n++}.db`);
    writeFileSync(junk, 'not a database at all, just text'.repeat(100));
    assert.throws(() => SqliteConnectionStore.open(junk, sealer), (e: unknown) => isMcpError(e, McpErrorCode.StoreCorrupt));
  });

  it('a dead holder\'s refresh lease lapses: the other process refreshes; the late result is not written over it', T, async () => {
    const file = join(dir, `lease-${n++}.db`);
    // A short lease: the first process "dies" (its refresh never returns while the lease holds).
    const dying = SqliteConnectionStore.open(file, sealer, { refreshLeaseMs: 100, pollMs: 10 });
    const other = SqliteConnectionStore.open(file, sealer, { refreshLeaseMs: 100, pollMs: 10 });
    const alice = connection('alice');
    await dying.put(alice);
    const key = { principal: 'alice', server: alice.server };
    let release!: (t: TokenSet) => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stuck = dying.refreshOnce(key, alice.tokens.accessToken, () => {
      started();
      return new Promise<TokenSet>((resolve) => (release = resolve));
    });
    await running;
    const fresh = tokens('takeover');
    const taken = await other.refreshOnce(key, alice.tokens.accessToken, () => Promise.resolve(fresh));
    assert.deepEqual(taken?.tokens, fresh);
    release(tokens('too-late'));
    assert.deepEqual((await stuck)?.tokens, fresh, 'the late refresh was written over the newer one');
    assert.deepEqual((await other.get(key))?.tokens, fresh);
    await dying.close();
    await other.close();
  });

  it('upgrades a version-1 file (before client registrations) in place, keeping its connections', T, async () => {
    const file = join(dir, `v1-${n++}.db`);
    const first = SqliteConnectionStore.open(file, sealer);
    const alice = connection('alice');
    await first.put(alice);
    await first.close();
    // What a version-1 Switchboard left: no registrations table, no tenant index, user_version 1.
    const raw = new Database(file);
    raw.exec('DROP TABLE client_registrations; DROP INDEX connections_tenant;');
    raw.pragma('user_version = 1');
    raw.close();
    const upgraded = SqliteConnectionStore.open(file, sealer);
    assert.deepEqual(await upgraded.get({ principal: 'alice', server: alice.server }), alice);
    const registration = { issuer: 'https://as.example.com', clientId: 'c-1', tokenEndpointAuthMethod: 'none' as const, source: 'dcr' as const };
    assert.deepEqual(await upgraded.registerOnce({ issuer: registration.issuer, redirectUri: 'https://gw.example.com/oauth/callback' }, () => Promise.resolve(registration)), registration);
    await upgraded.close();
    const check = new Database(file);
    assert.equal(check.pragma('user_version', { simple: true }), 2);
    check.close();
  });

  it('a dead holder\'s first-connection lease lapses: the other process connects; the late connection is not written over it', T, async () => {
    const file = join(dir, `connect-lease-${n++}.db`);
    const dying = SqliteConnectionStore.open(file, sealer, { refreshLeaseMs: 100, pollMs: 10 });
    const other = SqliteConnectionStore.open(file, sealer, { refreshLeaseMs: 100, pollMs: 10 });
    const key = { principal: 'alice', server: connection('alice').server };
    let release!: (c: Connection) => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stuck = dying.connectOnce(key, () => {
      started();
      return new Promise<Connection>((resolve) => (release = resolve));
    });
    await running;
    const fresh = connection('alice', key.server, 7_000);
    assert.deepEqual(await other.connectOnce(key, () => Promise.resolve(fresh)), fresh);
    release(connection('alice', key.server, 8_000));
    assert.deepEqual(await stuck, fresh, 'the late connection was written over the newer one');
    assert.deepEqual(await other.get(key), fresh);
    const leases = new Database(file);
    assert.equal((leases.prepare('SELECT count(*) AS n FROM connection_leases').get() as { n: number }).n, 0, 'no lease left behind');
    leases.close();
    await dying.close();
    await other.close();
  });
});
