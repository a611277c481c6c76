// Runs the consent store contracts against every implementation: grants in memory, SQLite
// (two connections on one file) and PostgreSQL (two instances on one schema); the queue alone
// and as two instances sharing one PostgreSQL schema (LISTEN/NOTIFY between them). Then the
// shared queue's failures: an unreachable store and a tampered answer both deny.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MemoryGrantStore } from '../../../src/host/consent/consentGrants.js';
import { ConsentQueue } from '../../../src/host/consent/consentQueue.js';
import { PgConsentRequests, PgGrantStore } from '../../../src/store/postgres/pgConsent.js';
import { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { SqliteGrantStore } from '../../../src/store/sqliteGrantStore.js';
import { POSTGRES_URL, TcpGate, freshSchema, openTestPostgres } from './backends.js';
import { consentQueueContract, grantStoreContract, sampleRequest, seen } from './consentStores.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-consent-contract-'));
const closers: (() => unknown)[] = [];
after(async () => {
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;

grantStoreContract(
  'memory',
  async () => {
    const store = new MemoryGrantStore();
    return { store, peer: store };
  },
  { persistent: false },
);

grantStoreContract('SQLite', async () => {
  const path = join(dir, `consent-${n++}.db`);
  const store = SqliteGrantStore.open(path);
  const peer = SqliteGrantStore.open(path);
  closers.push(() => store.close(), () => peer.close());
  return {
    store,
    peer,
    corrupt: async (id) => {
      const db = new Database(path);
      db.prepare("UPDATE grants SET record = '{\"id\":1}' WHERE id = ?").run(id);
      db.close();
    },
  };
}, { persistent: true });

grantStoreContract('PostgreSQL', async () => {
  const schema = freshSchema();
  const db = await openTestPostgres({ schema });
  const other = await openTestPostgres({ schema });
  return {
    store: new PgGrantStore(db),
    peer: new PgGrantStore(other),
    corrupt: async (id) => void (await db.query('damaging a grant', `UPDATE consent_grants SET record = '{"id":"x"}'::jsonb WHERE id = $1`, [id])),
  };
}, { persistent: true });

consentQueueContract('one instance (local queue)', async () => {
  const queue = new ConsentQueue();
  return { asker: queue, answerer: queue };
});

/** Two queues on one schema, as two gateway instances. */
async function sharedPair(): Promise<{ asker: ConsentQueue; answerer: ConsentQueue; db: PgDatabase }> {
  const schema = freshSchema();
  const db = await openTestPostgres({ schema });
  const other = await openTestPostgres({ schema });
  const asker = new ConsentQueue({ shared: new PgConsentRequests(db) });
  const answerer = new ConsentQueue({ shared: new PgConsentRequests(other) });
  closers.push(() => asker.close(), () => answerer.close());
  await Promise.all([asker.ready(), answerer.ready()]);
  return { asker, answerer, db };
}

consentQueueContract('two instances on PostgreSQL (LISTEN/NOTIFY)', sharedPair);

describe('shared consent queue on PostgreSQL: failures deny', () => {
  it('PostgreSQL unreachable when a call asks: the ask fails (denied), it does not wait unseen', async () => {
    const gate = new TcpGate(POSTGRES_URL);
    await gate.open();
    closers.push(() => gate.close());
    const schema = freshSchema();
    await openTestPostgres({ schema });
    const db = await PgDatabase.open(gate.via(POSTGRES_URL), { schema, connectTimeoutMs: 500 });
    closers.push(() => db.close());
    const queue = new ConsentQueue({ shared: new PgConsentRequests(db) });
    closers.push(() => queue.close());
    await gate.close();
    await assert.rejects(queue.ask(sampleRequest(), { signal: new AbortController().signal }), /could not be shared with the other instances/);
    assert.deepEqual(queue.pending(), []);
  });

  it('a tampered answer row (not an answer) is delivered as a denial, never as an approval', async () => {
    const { asker, answerer, db } = await sharedPair();
    const request = sampleRequest();
    const asked = asker.ask(request, { signal: new AbortController().signal });
    await seen(answerer, request.id);
    await db.query('tampering', `UPDATE consent_requests SET answer = '{"approved":true}'::jsonb WHERE id = $1`, [request.id]);
    await db.query('notifying', 'SELECT pg_notify($1, $2)', ['switchboard_consent', `${db.schema}|answered|${request.id}`]);
    const answer = await asked;
    assert.equal(answer.approved, false);
    assert.match(answer.approved ? '' : answer.reason, /malformed/);
  });

  it('a request of an instance that died stops counting as waiting once expired (no answer to a ghost)', async () => {
    const { asker, answerer } = await sharedPair();
    const request = sampleRequest({ expiresAt: new Date(Date.now() + 300).toISOString() });
    void asker.ask(request, { signal: new AbortController().signal }).catch(() => undefined);
    await seen(answerer, request.id);
    asker.close();
    await new Promise((r) => setTimeout(r, 350)); // the request's own expiry is the event under test
    assert.equal(answerer.get(request.id), undefined);
    await assert.rejects(answerer.answer(request.id, { approved: true, scope: { match: 'call', duration: 'once' }, approver: 'x', mediated: 'person' }), /is waiting/);
  });
});
