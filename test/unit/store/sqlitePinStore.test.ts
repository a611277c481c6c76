// The SQLite pin store: created when missing, round trip, other writers noticed, and a
// damaged file refused (fail closed) with a message that says what to do.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { PinTrust } from '../../../src/host/pins/pinTrust.js';
import { PinStoreCorruptError, type ServerPins } from '../../../src/host/pins/pinStore.js';
import { SqlitePinStore, openPinStore } from '../../../src/store/sqlitePinStore.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-pins-'));
  dirs.push(dir);
  return dir;
}
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const record: ServerPins = {
  identity: 'stdio:sha256:ab',
  alias: 'w',
  names: 'sha256:00',
  items: { 'tool:a': { kind: 'tool', name: 'a', definition: { name: 'a', inputSchema: { type: 'object' } }, digests: { text: 'sha256:01' }, trust: 'first-use', at: 1 } },
  pending: {
    'tool:b': { kind: 'tool', name: 'b', definition: { name: 'b' }, digests: { text: 'sha256:02' }, status: 'added', changes: [{ class: 'added', path: '$', summary: 'new tool' }], at: 2 },
  },
  updatedAt: 3,
};

describe('store/sqlitePinStore', () => {
  it('creates a missing store (mode 0600, folder 0700) and round-trips records', async () => {
    const dir = join(await tempDir(), 'state');
    const store = openPinStore(dir);
    assert.equal((await stat(join(dir, 'pins.db'))).mode & 0o777, 0o600);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(await store.load(), []);
    await store.save(record);
    await store.save({ ...record, alias: 'renamed' });
    assert.deepEqual(await store.load(), [{ ...record, alias: 'renamed' }]);
    await store.remove(record.identity);
    assert.deepEqual(await store.load(), []);
    await store.close();
  });

  it('notices a commit by another connection (switchboard pins approve while the gateway runs)', async () => {
    const path = join(await tempDir(), 'pins.db');
    const gateway = SqlitePinStore.open(path, { pollMs: 10 });
    const cli = SqlitePinStore.open(path);
    // The watch timer is unref'd (it must not keep a gateway alive): a deadline keeps this test's loop running.
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const noticed = new Promise<void>((resolve, reject) => {
      deadline = setTimeout(() => reject(new Error('the other connection\'s commit was not noticed within 5 s')), 5000);
      const stop = gateway.watch(() => {
        stop();
        clearTimeout(deadline);
        resolve();
      });
    });
    await cli.save(record);
    await noticed;
    assert.equal((await gateway.load()).length, 1);
    await cli.close();
    await gateway.close();
  });

  it('store corrupted: a file that is not a database is refused with a clear message, and `PinTrust` does not open on it', async () => {
    const path = join(await tempDir(), 'pins.db');
    await writeFile(path, 'this is not a database, it was overwritten '.repeat(200));
    assert.throws(
      () => SqlitePinStore.open(path),
      (e: unknown) => e instanceof PinStoreCorruptError && e.message.includes(path) && /damaged \(SQLite: file is not a database\)/.test(e.message) && /delete it to pin every server again/.test(e.message),
    );
  });

  it('store corrupted: a row that is not JSON fails the load, and PinTrust.open rejects (fail closed)', async () => {
    const path = join(await tempDir(), 'pins.db');
    const store = SqlitePinStore.open(path);
    await store.save(record);
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE items SET record = ? WHERE item_key = ?').run('{broken', 'tool:a');
    db.close();
    const reopened = SqlitePinStore.open(path);
    await assert.rejects(PinTrust.open({ store: reopened }), (e: unknown) => e instanceof PinStoreCorruptError && /a row is not valid JSON/.test(e.message));
    await reopened.close();
  });

  it('store from the future: a newer schema version is refused, not overwritten', async () => {
    const path = join(await tempDir(), 'pins.db');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    assert.throws(() => SqlitePinStore.open(path), (e: unknown) => e instanceof PinStoreCorruptError && /schema version 99/.test(e.message));
  });

  it('store tampered: a record whose items lost their shape is refused', async () => {
    const path = join(await tempDir(), 'pins.db');
    const store = SqlitePinStore.open(path);
    await store.save(record);
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE items SET record = ? WHERE item_key = ?').run('{"kind":"tool"}', 'tool:a');
    db.close();
    const reopened = SqlitePinStore.open(path);
    await assert.rejects(reopened.load(), (e: unknown) => e instanceof PinStoreCorruptError && /items tool:a of stdio:sha256:ab is malformed/.test(e.message));
    await reopened.close();
  });
});
