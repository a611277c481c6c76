// The taint snapshot in the state folder: round trip, expiry, and damaged files refused.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { PersistentTaintStore } from '../../../src/host/policy/taintPersistence.js';
import { SqliteTaintSnapshot } from '../../../src/store/sqliteTaintStore.js';
import { isMcpError } from '../../../src/util/errors.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-taint-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});
let n = 0;
const fresh = (): string => join(dir, `taint-${++n}.db`);
const source = { label: 'untrusted-content' as const, server: 'web', tool: 'fetch', at: 1_700_000_000_000, via: 'config servers.web.labels' };

describe('store/sqliteTaintStore', () => {
  it('keeps the label sources of each key across a reopen (a gateway restart), in a 0600 file', async () => {
    const file = fresh();
    const store = new PersistentTaintStore(SqliteTaintSnapshot.open(file));
    store.addSource('principal:p', source, 3_600_000, Date.now());
    store.addSource('session:s', { ...source, tool: undefined }, 3_600_000, Date.now());
    store.close();
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const reopened = new PersistentTaintStore(SqliteTaintSnapshot.open(file));
    assert.deepEqual(reopened.get('principal:p', Date.now())?.sources, [source]);
    assert.deepEqual(reopened.get('session:s', Date.now())?.sources, [{ ...source, tool: undefined }]);
    reopened.close();
  });

  it('drops expired keys when it saves', () => {
    const snapshot = SqliteTaintSnapshot.open(fresh());
    snapshot.save([{ key: 'principal:old', expires: 10, sources: [source] }, { key: 'principal:new', expires: 1_000, sources: [source] }], 500);
    assert.deepEqual(snapshot.load(0).map((r) => r.key), ['principal:new']);
    snapshot.close();
  });

  it('a file that is not a database is ERR_MCP_STORE_CORRUPT, never a crash', async () => {
    const file = fresh();
    await writeFile(file, 'not a database, just text '.repeat(100));
    assert.throws(() => SqliteTaintSnapshot.open(file), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_CORRUPT');
  });

  it('an edited row whose label is not one of ours (taint forged or damaged on disk) is ERR_MCP_STORE_CORRUPT at load, not silently dropped', () => {
    const file = fresh();
    SqliteTaintSnapshot.open(file).close();
    const db = new Database(file);
    db.prepare('INSERT INTO taint (key, expires, sources) VALUES (?, ?, ?)').run('principal:p', Date.now() + 60_000, JSON.stringify([{ ...source, label: 'trusted' }]));
    db.close();
    const snapshot = SqliteTaintSnapshot.open(file);
    assert.throws(() => snapshot.load(Date.now()), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_CORRUPT' && /principal:p/.test(e.message));
    snapshot.close();
  });
});
