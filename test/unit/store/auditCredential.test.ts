// The audit record names whose credential a downstream call carried (`credential`); records
// written before the member existed, and after, verify in one chain, and a forged credential
// breaks the chain.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AuditEntry } from '../../../src/host/audit.js';
import { canonicalize } from '../../../src/util/canonicalJson.js';
import { sha256Text } from '../../../src/store/auditChain.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-audit-credential-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (i: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({ time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', server: 'gh', name: `t${i}`, decisions: [], outcome: 'ok', latencyMs: 1, ...extra });

describe('audit: credential of a downstream call', () => {
  it('old records and records with a credential verify in one chain; the credential is kept', { timeout: 10_000 }, async () => {
    const file = join(dir, 'a.db');
    const log = SqliteAuditLog.open(file);
    await log.append(entry(1));
    const stored = await log.append(entry(2, { principal: 'alice', credential: { principal: 'alice', mode: 'per-user' } }));
    await log.append(entry(3, { credential: { mode: 'shared' } }));
    assert.deepEqual(stored.credential, { principal: 'alice', mode: 'per-user' });
    assert.equal(log.verify().ok, true);
    await log.close();
    const reopened = SqliteAuditLog.open(file);
    assert.equal(reopened.verify().ok, true);
    await reopened.close();
  });

  it('credential-rewritten-on-disk breaks the chain (bob claimed as alice)', { timeout: 10_000 }, async () => {
    const file = join(dir, 'b.db');
    const log = SqliteAuditLog.open(file);
    await log.append(entry(1, { principal: 'bob', credential: { principal: 'bob', mode: 'per-user' } }));
    await log.append(entry(2));
    await log.close();
    const db = new Database(file);
    db.prepare("UPDATE audit SET line = replace(line, '\"principal\":\"bob\"},', '\"principal\":\"alice\"},') WHERE seq = 1").run();
    const changed = db.prepare('SELECT line FROM audit WHERE seq = 1').get() as { line: string };
    db.close();
    assert.match(changed.line, /alice/);
    const reopened = SqliteAuditLog.open(file);
    assert.equal(reopened.verify().ok, false);
    await reopened.close();
  });

  it('a record with a credential is stored compact (its arguments\' digest as bytes) and read back as its canonical text; a swapped digest is caught', { timeout: 10_000 }, async () => {
    const file = join(dir, 'c.db');
    const log = SqliteAuditLog.open(file);
    await log.append(entry(1, { arguments: { repo: 'a' }, credential: { principal: 'alice', mode: 'per-user' } }));
    await log.append(entry(2, { arguments: { repo: 'b' }, credential: { principal: 'alice', mode: 'per-user' } }));
    const [first] = log.read({ from: 1, limit: 1 });
    assert.equal(log.verify().ok, true);
    await log.close();
    assert.deepEqual(first?.credential, { principal: 'alice', mode: 'per-user' });
    const { hash, ...record } = first as unknown as Record<string, unknown>;
    assert.equal(hash, sha256Text(canonicalize(record)), 'the record read back hashes to its stored hash (its canonical text)');
    const db = new Database(file);
    const digests = db.prepare('SELECT digest FROM audit ORDER BY seq').all() as { digest: Buffer | null }[];
    assert.ok(digests.every((d) => d.digest !== null), 'the digest is kept as bytes beside the line');
    db.prepare('UPDATE audit SET digest = (SELECT digest FROM audit WHERE seq = 2) WHERE seq = 1').run();
    db.close();
    const reopened = SqliteAuditLog.open(file);
    assert.equal(reopened.verify().ok, false);
    await reopened.close();
  });
});
