// Runs the PinStore contract against every implementation: memory, SQLite (two connections on
// one file), PostgreSQL (two instances on one schema, LISTEN/NOTIFY between them).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import Database from 'better-sqlite3';
import { MemoryPinStore } from '../../../src/host/pins/pinStore.js';
import { PgPinStore } from '../../../src/store/postgres/pgPinStore.js';
import { SqlitePinStore } from '../../../src/store/sqlitePinStore.js';
import { freshSchema, openTestPostgres } from './backends.js';
import { pinStoreContract } from './pinStore.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-pin-contract-'));
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;

pinStoreContract(
  'memory',
  async () => {
    const store = new MemoryPinStore();
    return { store, peer: store, peerSave: (pins) => store.changedElsewhere(pins) };
  },
  { persistent: false },
);

pinStoreContract(
  'SQLite',
  async () => {
    const path = join(dir, `pins-${n++}.db`);
    const store = SqlitePinStore.open(path, { pollMs: 10 });
    const peer = SqlitePinStore.open(path);
    closers.push(() => store.close(), () => peer.close());
    return {
      store,
      peer,
      peerSave: (pins) => peer.save(pins),
      corrupt: async (identity) => {
        const db = new Database(path);
        db.prepare("UPDATE servers SET record = 'not json' WHERE identity = ?").run(identity);
        db.close();
      },
    };
  },
  { persistent: true },
);

pinStoreContract(
  'PostgreSQL',
  async () => {
    const schema = freshSchema();
    const db = await openTestPostgres({ schema });
    const other = await openTestPostgres({ schema });
    const peer = new PgPinStore(other);
    return {
      store: new PgPinStore(db),
      peer,
      peerSave: (pins) => peer.save(pins),
      corrupt: async (identity) => void (await db.query('damaging a record', `UPDATE pin_items SET record = '"not a pin"'::jsonb WHERE identity = $1`, [identity])),
    };
  },
  { persistent: true },
);
