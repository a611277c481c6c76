import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { ConsentGrant } from '../../../src/host/consent/consentGrants.js';
import { openGrantStore, SqliteGrantStore } from '../../../src/store/sqliteGrantStore.js';

let dir: string;
before(async () => void (dir = await mkdtemp(join(tmpdir(), 'sb-grants-'))));
after(() => rm(dir, { recursive: true, force: true }));

const NOW = Date.parse('2026-12-01T10:00:00Z');
const grant = (id: string, over: Partial<ConsentGrant> = {}): ConsentGrant => ({
  id,
  createdAt: '2026-12-01T10:00:00Z',
  approver: 'admin-token',
  mediated: 'person',
  scope: { match: 'tool', duration: 'until', expiresAt: '2026-12-01T11:00:00Z' },
  serverIdentity: 'http:https://mail.example/mcp',
  tool: 'send',
  definitionDigest: 'sha256:d',
  principal: 'agent-1',
  expiresAt: '2026-12-01T11:00:00Z',
  ...over,
});

describe('SqliteGrantStore', () => {
  it('keeps approvals across restarts (mode 0600), expires and revokes them; session approvals do not survive a restart', async () => {
    const folder = join(dir, 'a');
    const store = openGrantStore(folder);
    await store.add(grant('g1'));
    await store.add(grant('g2', { scope: { match: 'tool', duration: 'session' }, session: 's1' }));
    await store.add(grant('g3', { expiresAt: '2026-12-01T10:30:00Z', scope: { match: 'tool', duration: 'until', expiresAt: '2026-12-01T10:30:00Z' } }));
    assert.deepEqual((await store.list(NOW)).map((g) => g.id), ['g1', 'g2', 'g3']);
    assert.equal(statSync(store.path).mode & 0o777, 0o600);
    await store.close();

    const reopened = openGrantStore(folder);
    assert.deepEqual((await reopened.list(NOW)).map((g) => g.id), ['g1', 'g3'], 'the session approval is gone');
    assert.deepEqual((await reopened.list(Date.parse('2026-12-01T10:30:00Z'))).map((g) => g.id), ['g1'], 'expired at its expiry');
    assert.equal(await reopened.revoke('g1'), true);
    assert.equal(await reopened.revoke('g1'), false);
    assert.deepEqual(await reopened.list(NOW), []);
    await reopened.close();
  });

  it('a row edited to drop its argument binding is not trusted (it covers nothing)', async () => {
    const folder = join(dir, 'b');
    const store = openGrantStore(folder);
    await store.add(grant('exact', { scope: { match: 'call', duration: 'until', expiresAt: '2026-12-01T11:00:00Z' }, argumentsDigest: 'sha256:a' }));
    await store.close();
    const db = new Database(join(folder, 'consent.db'));
    db.prepare("UPDATE grants SET record = json_remove(record, '$.argumentsDigest')").run();
    db.close();
    const reopened = openGrantStore(folder);
    assert.deepEqual(await reopened.list(NOW), []);
    await reopened.close();
  });

  it('a damaged file is refused with a clear message', async () => {
    const path = join(dir, 'broken.db');
    await writeFile(path, 'garbage '.repeat(1000));
    assert.throws(() => SqliteGrantStore.open(path), /consent approvals in .*broken\.db are damaged \(SQLite: file is not a database\)/);
  });
});
