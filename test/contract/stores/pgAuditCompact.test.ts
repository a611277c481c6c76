// The PostgreSQL audit log's compact rows (migration 5, src/store/postgres/pgAuditLog.ts): what a
// row keeps (no hash, the digest as bytes, frozen decisions once), that reading restores the
// canonical text exactly, that a table of rows written before migration 5 is migrated and keeps
// verifying as its chain continues, and that tampering with a stored part is found.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { AuditEntry, AuditRecord } from '../../../src/host/audit.js';
import type { Decision } from '../../../src/host/interceptors.js';
import { AUDIT_GENESIS, chainRecord } from '../../../src/store/auditChain.js';
import { PgAuditLog } from '../../../src/store/postgres/pgAuditLog.js';
import { MIGRATIONS } from '../../../src/store/postgres/pgMigrations.js';
import type { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { canonicalize } from '../../../src/util/canonicalJson.js';
import { POSTGRES_URL, freshSchema, openTestPostgres } from './backends.js';

const TIMEOUT = { timeout: 30_000 };
const DEFAULT_ALLOW: Decision = Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) });

function entry(i: number): AuditEntry {
  return { time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', principal: 'alice', server: 'fs', name: `tool${i}`, arguments: { i }, decisions: [DEFAULT_ALLOW], outcome: 'ok', latencyMs: 1.5 };
}

interface RawRow {
  seq: string;
  line: string;
  hash: string;
  digest: Buffer | null;
  decisions: string | null;
}

const rawRows = (db: PgDatabase): Promise<RawRow[]> => db.query<RawRow>('reading rows', 'SELECT seq, line, hash, digest, decisions FROM audit ORDER BY seq');

describe('store/pgAuditLog: compact rows', () => {
  it('keeps no hash (audit_head has the last), the digest as 32 bytes and a frozen decision once; reading restores the records exactly', TIMEOUT, async () => {
    const db = await openTestPostgres();
    const log = new PgAuditLog(db);
    const appended = await Promise.all([1, 2, 3, 4, 5].map((i) => log.append(entry(i))));
    const rows = await rawRows(db);
    assert.deepEqual(rows.map((r) => [r.hash, r.digest?.length, r.decisions !== null]), Array.from({ length: 5 }, () => ['', 32, true]));
    for (const [i, row] of rows.entries()) assert.equal(`sha256:${row.digest?.toString('hex') ?? ''}`, appended[i]?.argumentsDigest);
    assert.deepEqual(await db.query('reading texts', 'SELECT text FROM audit_decisions'), [{ text: canonicalize([DEFAULT_ALLOW]) }]);
    assert.deepEqual(await log.read(), appended);
    assert.deepEqual(await log.tail(2), appended.slice(3));
    // A second instance (nothing cached) reads the same.
    assert.deepEqual(await new PgAuditLog(db).read(), appended);
    assert.deepEqual(await log.verify(), { ok: true, records: 5, head: appended[4]?.hash, problems: [] });
    await log.close();
  });

  it('an edited record is named (by the next link, or by audit_head for the last); a swapped digest too', TIMEOUT, async () => {
    const db = await openTestPostgres();
    const log = new PgAuditLog(db);
    await Promise.all([1, 2, 3, 4].map((i) => log.append(entry(i))));
    await db.query('tampering', `UPDATE audit SET line = replace(line, '"outcome":"ok"', '"outcome":"denied"') WHERE seq = 2`);
    assert.deepEqual((await log.verify()).problems.map((p) => [p.seq, p.problem]), [[2, 'the record does not match its hash (edited)']]);
    await db.query('tampering', `UPDATE audit SET line = replace(line, '"outcome":"denied"', '"outcome":"ok"') WHERE seq = 2`);
    assert.equal((await log.verify()).ok, true);
    await db.query('tampering', 'UPDATE audit SET digest = (SELECT digest FROM audit WHERE seq = 1) WHERE seq = 3');
    assert.deepEqual((await log.verify()).problems.map((p) => p.seq), [3]);
    await db.query('tampering', 'UPDATE audit SET digest = (SELECT digest FROM audit WHERE seq = 4) WHERE seq = 3');
    await db.query('tampering', `UPDATE audit SET line = replace(line, '"outcome":"ok"', '"outcome":"denied"') WHERE seq = 4`);
    const last = await log.verify();
    assert.equal(last.ok, false);
    assert.ok(last.problems.some((p) => p.seq === 4 && /records at the end were deleted or rewritten/.test(p.problem)), JSON.stringify(last.problems));
    await log.close();
  });

  it('a table written before migration 5 (whole lines, every hash) is migrated on open, keeps verifying, and its chain continues compact', TIMEOUT, async () => {
    const schema = freshSchema();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    const old: AuditRecord[] = [];
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      // As a Switchboard of migration 4 left it.
      await client.query('CREATE TABLE switchboard_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const [i, migration] of MIGRATIONS.slice(0, 4).entries()) {
        await client.query(migration.sql);
        await client.query('INSERT INTO switchboard_migrations (version, name) VALUES ($1, $2)', [i + 1, migration.name]);
      }
      let prev = AUDIT_GENESIS;
      for (let seq = 1; seq <= 3; seq++) {
        const row = chainRecord(entry(seq), seq, prev);
        await client.query('INSERT INTO audit (seq, line, hash) VALUES ($1, $2, $3)', [seq, row.line, row.hash]);
        old.push(row.record);
        prev = row.hash;
      }
      await client.query('UPDATE audit_head SET seq = 3, hash = $1', [prev]);
    } finally {
      await client.end();
    }
    const db = await openTestPostgres({ schema });
    const log = new PgAuditLog(db);
    assert.deepEqual(await log.verify(), { ok: true, records: 3, head: old[2]?.hash, problems: [] });
    assert.deepEqual(await log.read(), old);
    const more = await Promise.all([4, 5].map((i) => log.append(entry(i))));
    assert.equal(more[0]?.prev, old[2]?.hash);
    assert.deepEqual(await log.verify(), { ok: true, records: 5, head: more[1]?.hash, problems: [] });
    const rows = await rawRows(db);
    assert.deepEqual(rows.map((r) => [r.hash !== '', r.digest === null, r.decisions === null]), [[true, true, true], [true, true, true], [true, true, true], [false, false, false], [false, false, false]]);
    await log.close();
  });
});
