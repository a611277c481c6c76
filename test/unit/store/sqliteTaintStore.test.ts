// The taint snapshot in the state folder: round trip, expiry, damaged files refused, and the
// save's disk sync off the event loop (a failed sync reported, never lost).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it, mock } from 'node:test';
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

  it('a save does not wait for the disk: WAL with synchronous NORMAL, and what it wrote is read by a second connection before close (what a killed gateway leaves)', () => {
    const file = fresh();
    const snapshot = SqliteTaintSnapshot.open(file);
    snapshot.save([{ key: 'principal:p', expires: Date.now() + 60_000, sources: [source] }], Date.now());
    const other = new Database(file, { readonly: true });
    try {
      assert.equal(other.pragma('journal_mode', { simple: true }), 'wal');
      assert.deepEqual(other.prepare('SELECT key FROM taint').all(), [{ key: 'principal:p' }]);
    } finally {
      other.close();
      snapshot.close();
    }
  });
});

describe('store/sqliteTaintStore: a failed sync of the WAL', () => {
  afterEach(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });
  const ioError = (): NodeJS.ErrnoException => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

  it('is reported by the next save, which fails (its rows stay dirty and are saved again once the disk syncs)', async () => {
    const file = fresh();
    const errors: unknown[] = [];
    const store = new PersistentTaintStore(SqliteTaintSnapshot.open(file), { flushMs: 60_000, onError: (e) => errors.push(e) });
    mock.method(fs, 'fdatasync', (_fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => setImmediate(() => callback(ioError())));
    syncBuiltinESMExports();
    store.addSource('principal:a', source, 3_600_000, Date.now());
    store.flush();
    assert.deepEqual(errors, [], 'the save itself does not wait for the sync');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // The next save syncs first; the disk still fails: reported, and principal:b stays dirty.
    mock.method(fs, 'fdatasyncSync', () => {
      throw ioError();
    });
    syncBuiltinESMExports();
    store.addSource('principal:b', source, 3_600_000, Date.now());
    store.flush();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /EIO/);
    mock.restoreAll();
    syncBuiltinESMExports();
    store.close();
    const reopened = new PersistentTaintStore(SqliteTaintSnapshot.open(file));
    assert.deepEqual(reopened.get('principal:a', Date.now())?.sources, [source]);
    assert.deepEqual(reopened.get('principal:b', Date.now())?.sources, [source]);
    reopened.close();
  });

  it('is reported by close when no save came after it', async () => {
    const snapshot = SqliteTaintSnapshot.open(fresh());
    mock.method(fs, 'fdatasync', (_fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => setImmediate(() => callback(ioError())));
    mock.method(fs, 'fdatasyncSync', () => {
      throw ioError();
    });
    syncBuiltinESMExports();
    snapshot.save([{ key: 'principal:p', expires: Date.now() + 60_000, sources: [source] }], Date.now());
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.throws(() => snapshot.close(), /EIO/);
  });
});
