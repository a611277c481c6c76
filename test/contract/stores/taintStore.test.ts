// Runs the TaintStore contract against every implementation: memory, SQLite (the persistent
// store over the taint.db snapshot; a restart reopens the file), Redis (two instances on one
// key prefix; a restart is a new connection).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { MemoryTaintStore } from '../../../src/host/policy/taint.js';
import { PersistentTaintStore } from '../../../src/host/policy/taintPersistence.js';
import { RedisTaintStore } from '../../../src/store/redis/redisTaintStore.js';
import { SqliteTaintSnapshot } from '../../../src/store/sqliteTaintStore.js';
import { openTestRedis } from './backends.js';
import { taintStoreContract } from './taintStore.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-taint-contract-'));
const open: PersistentTaintStore[] = [];
after(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;

taintStoreContract('memory', async (bounds) => ({ store: new MemoryTaintStore(bounds) }), { shared: false, persistent: false });

taintStoreContract(
  'SQLite',
  async (bounds) => {
    const file = join(dir, `taint-${n++}.db`);
    const store = new PersistentTaintStore(SqliteTaintSnapshot.open(file), bounds);
    open.push(store);
    return {
      store,
      restart: async () => {
        store.close();
        const again = new PersistentTaintStore(SqliteTaintSnapshot.open(file), bounds);
        open.push(again);
        return again;
      },
    };
  },
  { shared: false, persistent: true },
);

taintStoreContract(
  'Redis',
  async (bounds) => {
    const cache = await openTestRedis();
    const other = await openTestRedis({ prefix: cache.prefix });
    return {
      store: new RedisTaintStore(cache, bounds),
      peer: new RedisTaintStore(other, bounds),
      restart: async () => {
        await cache.close();
        return new RedisTaintStore(await openTestRedis({ prefix: cache.prefix }), bounds);
      },
    };
  },
  { shared: true, persistent: true },
);
