// Runs the per-user connection-store contract (and its client-registration part) against SQLite (two stores on one file: two
// processes on one machine) and PostgreSQL (two pools on one schema: two gateway instances).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import Database from 'better-sqlite3';
import { signInKey } from '../../../src/store/connectionRecords.js';
import { ConnectionSealer } from '../../../src/store/connectionSealer.js';
import { PgConnectionStore } from '../../../src/store/postgres/pgConnectionStore.js';
import type { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { SqliteConnectionStore } from '../../../src/store/sqliteConnectionStore.js';
import { openTestPostgres, freshSchema } from './backends.js';
import { clientRegistrationContract } from './clientRegistrations.contract.js';
import { connectionStoreContract } from './connectionStore.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-connections-contract-'));
const closers: (() => Promise<void>)[] = [];
// The PostgreSQL pools of the running test, closed when the next test makes its backend (the tests
// of a file run one at a time): left open until the file ends (and idle for 10 s before the pool
// drops a connection), the ~40 PostgreSQL tests of this file, each with an admin connection and
// two or three instances, ran the server out of connections (max_connections 100, "too many
// clients") and failed the other files' PostgreSQL tests running beside them.
const POOL = 3;
let pgPools: PgDatabase[] = [];
async function pgForTest(schema: string, poolSize: number): Promise<PgDatabase> {
  const db = await openTestPostgres({ schema, poolSize });
  pgPools.push(db);
  return db;
}
async function endPreviousTest(): Promise<void> {
  const done = pgPools;
  pgPools = [];
  await Promise.all(done.map((db) => db.close().catch(() => undefined)));
}
after(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;

/** Every column of every row as text (blobs byte for byte, as Latin-1). */
function asText(rows: readonly Record<string, unknown>[]): string {
  return rows.map((row) => Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : typeof v === 'object' ? JSON.stringify(v) : String(v))).join('|')).join('\n');
}

function flip(sealed: Buffer, offsetFromEnd: number): Buffer {
  const copy = Buffer.from(sealed);
  const i = copy.byteLength - offsetFromEnd;
  copy[i] = (copy[i] as number) ^ 0x01;
  return copy;
}

connectionStoreContract('SQLite', async () => {
  const file = join(dir, `connections-${n++}.db`);
  const key = new Uint8Array(randomBytes(32));
  const raw = (): Database.Database => new Database(file);
  const withRaw = <R>(fn: (db: Database.Database) => R): R => {
    const db = raw();
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    key,
    instance: (k = key) => {
      const store = SqliteConnectionStore.open(file, ConnectionSealer.fromKey(k));
      closers.push(() => store.close());
      return Promise.resolve(store);
    },
    dump: () => Promise.resolve(withRaw((db) => asText([...db.prepare('SELECT * FROM connections').all(), ...db.prepare('SELECT * FROM pending_sign_ins').all()] as Record<string, unknown>[]))),
    copySealed: (from, to) =>
      Promise.resolve(
        withRaw((db) => void db.prepare('UPDATE connections SET sealed = (SELECT sealed FROM connections WHERE principal = ? AND server = ?) WHERE principal = ? AND server = ?').run(from[0], from[1], to[0], to[1])),
      ),
    flipByte: ([principal, server], offset) =>
      Promise.resolve(
        withRaw((db) => {
          const row = db.prepare('SELECT sealed FROM connections WHERE principal = ? AND server = ?').get(principal, server) as { sealed: Buffer };
          db.prepare('UPDATE connections SET sealed = ? WHERE principal = ? AND server = ?').run(flip(row.sealed, offset), principal, server);
        }),
      ),
    copyPending: (from, to) =>
      Promise.resolve(withRaw((db) => void db.prepare('UPDATE pending_sign_ins SET sealed = (SELECT sealed FROM pending_sign_ins WHERE state_hash = ?) WHERE state_hash = ?').run(signInKey(from), signInKey(to)))),
    pendingRows: () => Promise.resolve(withRaw((db) => (db.prepare('SELECT count(*) AS n FROM pending_sign_ins').get() as { n: number }).n)),
  };
});

connectionStoreContract('PostgreSQL', async () => {
  await endPreviousTest();
  const schema = freshSchema();
  const key = new Uint8Array(randomBytes(32));
  const admin = await pgForTest(schema, 1);
  return {
    key,
    // Each instance its own pool: two gateway instances sharing the database.
    instance: async (k = key) => new PgConnectionStore(await pgForTest(schema, POOL), ConnectionSealer.fromKey(k)),
    dump: async () => asText([...(await admin.query('dump', 'SELECT * FROM connections')), ...(await admin.query('dump', 'SELECT * FROM pending_sign_ins'))]),
    copySealed: async (from, to) => {
      await admin.query('swap', 'UPDATE connections SET sealed = (SELECT sealed FROM connections WHERE principal = $1 AND server = $2) WHERE principal = $3 AND server = $4', [from[0], from[1], to[0], to[1]]);
    },
    flipByte: async ([principal, server], offset) => {
      const [row] = await admin.query<{ sealed: Buffer }>('read', 'SELECT sealed FROM connections WHERE principal = $1 AND server = $2', [principal, server]);
      await admin.query('flip', 'UPDATE connections SET sealed = $1 WHERE principal = $2 AND server = $3', [flip((row as { sealed: Buffer }).sealed, offset), principal, server]);
    },
    copyPending: async (from, to) => {
      await admin.query('swap', 'UPDATE pending_sign_ins SET sealed = (SELECT sealed FROM pending_sign_ins WHERE state_hash = $1) WHERE state_hash = $2', [signInKey(from), signInKey(to)]);
    },
    pendingRows: async () => Number((await admin.query<{ n: string }>('count', 'SELECT count(*) AS n FROM pending_sign_ins'))[0]?.n),
  };
});

clientRegistrationContract('SQLite', async () => {
  const file = join(dir, `registrations-${n++}.db`);
  const key = new Uint8Array(randomBytes(32));
  const withRaw = <R>(fn: (db: Database.Database) => R): R => {
    const db = new Database(file);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  const instance = (k = key) => {
    const store = SqliteConnectionStore.open(file, ConnectionSealer.fromKey(k));
    closers.push(() => store.close());
    return Promise.resolve(store);
  };
  await instance(); // creates the file and its tables
  return {
    instance,
    locks: false,
    dump: () => Promise.resolve(withRaw((db) => asText(db.prepare('SELECT * FROM client_registrations').all() as Record<string, unknown>[]))),
    flipByte: (k, offset) =>
      Promise.resolve(
        withRaw((db) => {
          const row = db.prepare('SELECT sealed FROM client_registrations WHERE issuer = ? AND redirect_uri = ?').get(k.issuer, k.redirectUri) as { sealed: Buffer };
          db.prepare('UPDATE client_registrations SET sealed = ? WHERE issuer = ? AND redirect_uri = ?').run(flip(row.sealed, offset), k.issuer, k.redirectUri);
        }),
      ),
    copySealed: (from, to) =>
      Promise.resolve(
        withRaw(
          (db) =>
            void db
              .prepare('UPDATE client_registrations SET (client_id, sealed) = (SELECT client_id, sealed FROM client_registrations WHERE issuer = ? AND redirect_uri = ?) WHERE issuer = ? AND redirect_uri = ?')
              .run(from.issuer, from.redirectUri, to.issuer, to.redirectUri),
        ),
      ),
    rows: () => Promise.resolve(withRaw((db) => (db.prepare('SELECT count(*) AS n FROM client_registrations').get() as { n: number }).n)),
  };
});

clientRegistrationContract('PostgreSQL', async () => {
  await endPreviousTest();
  const schema = freshSchema();
  const key = new Uint8Array(randomBytes(32));
  const admin = await pgForTest(schema, 1);
  return {
    instance: async (k = key) => new PgConnectionStore(await pgForTest(schema, POOL), ConnectionSealer.fromKey(k)),
    locks: true,
    dump: async () => asText(await admin.query('dump', 'SELECT * FROM client_registrations')),
    flipByte: async (k, offset) => {
      const [row] = await admin.query<{ sealed: Buffer }>('read', 'SELECT sealed FROM client_registrations WHERE issuer = $1 AND redirect_uri = $2', [k.issuer, k.redirectUri]);
      await admin.query('flip', 'UPDATE client_registrations SET sealed = $1 WHERE issuer = $2 AND redirect_uri = $3', [flip((row as { sealed: Buffer }).sealed, offset), k.issuer, k.redirectUri]);
    },
    copySealed: async (from, to) => {
      await admin.query(
        'swap',
        'UPDATE client_registrations SET (client_id, sealed) = (SELECT client_id, sealed FROM client_registrations WHERE issuer = $1 AND redirect_uri = $2) WHERE issuer = $3 AND redirect_uri = $4',
        [from.issuer, from.redirectUri, to.issuer, to.redirectUri],
      );
    },
    rows: async () => Number((await admin.query<{ n: string }>('count', 'SELECT count(*) AS n FROM client_registrations'))[0]?.n),
  };
});
