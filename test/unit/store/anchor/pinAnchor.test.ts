import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MemoryPinStore, type ServerPins } from '../../../../src/host/pins/pinStore.js';
import { AnchorFolder } from '../../../../src/store/anchor/anchorFile.js';
import { AnchoredPinStore } from '../../../../src/store/anchor/pinAnchor.js';
import { AuditCheckpointer, auditAnchorProblem, checkAuditAnchor } from '../../../../src/store/anchor/auditAnchor.js';
import { readSignedCheckpoint, signCheckpoint, witnessKey } from '../../../../src/store/anchor/auditWitness.js';
import { SqliteAuditLog } from '../../../../src/store/sqliteAudit.js';
import { openPinStore } from '../../../../src/store/sqlitePinStore.js';

const T = { timeout: 20_000 };
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-anchor-unit-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const pins = (identity: string, updatedAt: number): ServerPins => ({ identity, alias: identity, names: 'sha256:x', items: {}, pending: {}, updatedAt });
const entry = { time: '2026-01-01T00:00:00.000Z', kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1 } as const;

describe('AnchorFolder', () => {
  it('round-trips a checkpoint; one altered, or copied to name another store, does not verify', T, () => {
    const folder = AnchorFolder.open(join(dir, 'a1'));
    folder.write('audit', 'file:/x/audit.db', { seq: 3, hash: 'sha256:a', time: 't' });
    assert.deepEqual(folder.read('audit', 'file:/x/audit.db'), { seq: 3, hash: 'sha256:a', time: 't' });
    const file = folder.fileOf('audit', 'file:/x/audit.db');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"seq":3', '"seq":1'));
    assert.throws(() => folder.read('audit', 'file:/x/audit.db'), /does not verify with the anchor key/);
    writeFileSync(folder.fileOf('audit', 'file:/y/audit.db'), text);
    assert.throws(() => folder.read('audit', 'file:/y/audit.db'), /does not verify/);
    assert.equal(folder.read('pins', 'file:/none'), undefined);
  });

  it('forged anchor: a checkpoint made with another key does not verify', T, () => {
    const mine = AnchorFolder.open(join(dir, 'a2'));
    const theirs = AnchorFolder.open(join(dir, 'a3'));
    theirs.write('pins', 'file:/p', { servers: {}, at: 0 });
    writeFileSync(mine.fileOf('pins', 'file:/p'), readFileSync(theirs.fileOf('pins', 'file:/p')));
    assert.throws(() => mine.read('pins', 'file:/p'), /does not verify/);
  });
});

describe('AnchoredPinStore', () => {
  it('state reset: an emptied store (moved away, a new one in its place) is refused at open, not pinned anew', T, async () => {
    const folder = AnchorFolder.open(join(dir, 'p1'));
    const first = new MemoryPinStore();
    const { store } = await AnchoredPinStore.open(first, folder, 'file:/s/pins.db');
    await store.update('stdio:a', () => pins('stdio:a', 1));
    await assert.rejects(AnchoredPinStore.open(new MemoryPinStore(), folder, 'file:/s/pins.db'), /the pins of stdio:a are missing \(the store was moved away, replaced or emptied\).*switchboard anchor reset/);
    // The store itself still opens.
    assert.equal((await AnchoredPinStore.open(first, folder, 'file:/s/pins.db')).status.servers, 1);
  });

  it('rollback: a store replaced by its older copy (the record before the last approval) is refused', T, async () => {
    const folder = AnchorFolder.open(join(dir, 'p2'));
    const live = new MemoryPinStore();
    const { store } = await AnchoredPinStore.open(live, folder, 'file:/s/pins.db');
    await store.update('stdio:a', () => pins('stdio:a', 1));
    const old = new MemoryPinStore();
    await old.save(pins('stdio:a', 1));
    await store.update('stdio:a', () => pins('stdio:a', 2));
    await assert.rejects(AnchoredPinStore.open(old, folder, 'file:/s/pins.db'), /differ from the anchored ones/);
  });

  it('tampering: a record added or edited outside Switchboard is refused at open and at the next write', T, async () => {
    const folder = AnchorFolder.open(join(dir, 'p3'));
    const live = new MemoryPinStore();
    const { store } = await AnchoredPinStore.open(live, folder, 'file:/s/pins.db');
    await store.update('stdio:a', () => pins('stdio:a', 1));
    await live.save(pins('stdio:a', 99)); // behind the wrapper's back
    await assert.rejects(store.update('stdio:a', () => pins('stdio:a', 3)), /changed outside Switchboard\); not written/);
    await live.save(pins('stdio:evil', 1));
    await assert.rejects(AnchoredPinStore.open(live, folder, 'file:/s/pins.db'), /stdio:evil \(stdio:evil\) were added outside Switchboard/);
  });

  it('writes through the wrapper, a removal, and a new SQLite store on the same path after reset open cleanly', T, async () => {
    const folder = AnchorFolder.open(join(dir, 'p4'));
    const file = openPinStore(join(dir, 'state4'));
    const { store, status } = await AnchoredPinStore.open(file, folder, 'file:/s4/pins.db');
    assert.deepEqual(status, { created: true, servers: 0 });
    await store.save(pins('stdio:a', 1));
    await store.save(pins('stdio:b', 1));
    await store.remove('stdio:b');
    await store.close();
    const again = openPinStore(join(dir, 'state4'));
    assert.deepEqual((await AnchoredPinStore.open(again, folder, 'file:/s4/pins.db')).status, { created: false, servers: 1 });
    await assert.rejects(AnchoredPinStore.open(new MemoryPinStore(), folder, 'file:/s4/pins.db'));
    assert.equal(await AnchoredPinStore.reset(new MemoryPinStore(), folder, 'file:/s4/pins.db'), 0);
    assert.equal((await AnchoredPinStore.open(new MemoryPinStore(), folder, 'file:/s4/pins.db')).status.servers, 0);
    await again.close();
  });
});

describe('audit anchor', () => {
  it('log tail truncation, emptying and re-chaining are each named; an intact log passes; the checkpointer moves the anchor forward', T, async () => {
    const folder = AnchorFolder.open(join(dir, 'au1'));
    const log = SqliteAuditLog.open(':memory:');
    await checkAuditAnchor(log, folder, 'mem');
    const checkpoints = new AuditCheckpointer(log, folder, 'mem', { intervalMs: 60_000 });
    for (let i = 0; i < 5; i++) await log.append(entry);
    await checkpoints.stop();
    const anchor = folder.read<{ seq: number; hash: string }>('audit', 'mem');
    assert.equal(anchor?.seq, 5);
    assert.equal(await auditAnchorProblem(log, anchor as { seq: number; hash: string }), undefined);
    assert.match((await auditAnchorProblem(log, { seq: 7, hash: 'sha256:x' })) ?? '', /ends at record 5, but the anchor says record 7 existed: its tail was truncated/);
    assert.match((await auditAnchorProblem(log, { seq: 5, hash: 'sha256:x' })) ?? '', /re-chained or replaced/);
    const empty = SqliteAuditLog.open(':memory:');
    assert.match((await auditAnchorProblem(empty, { seq: 5, hash: 'sha256:x' })) ?? '', /the log is empty/);
    await assert.rejects(checkAuditAnchor(empty, folder, 'mem'), /does not continue a broken chain/);
    await log.close();
    await empty.close();
  });

  it('witness checkpoint: signed and verified; a changed number, hash or key does not verify', T, () => {
    const folder = AnchorFolder.open(join(dir, 'w1'));
    const signed = signCheckpoint({ seq: 4, hash: 'sha256:abc', time: '2026-01-01T00:00:00.000Z' }, 'file:/a', witnessKey(folder));
    assert.deepEqual(readSignedCheckpoint(JSON.stringify(signed)), signed);
    assert.equal(witnessKey(folder).equals(witnessKey(folder)), true, 'the key is kept');
    assert.match(String(readSignedCheckpoint(JSON.stringify({ ...signed, seq: 9 }))), /signature does not verify/);
    assert.match(String(readSignedCheckpoint(JSON.stringify({ ...signed, hash: 'sha256:def' }))), /signature does not verify/);
    const other = signCheckpoint({ seq: 4, hash: 'sha256:abc', time: signed.time }, 'file:/a', witnessKey(AnchorFolder.open(join(dir, 'w2'))));
    assert.match(String(readSignedCheckpoint(JSON.stringify({ ...signed, key: other.key }))), /signature does not verify/);
    assert.match(String(readSignedCheckpoint('{"type":"x"}')), /not a switchboard-audit-checkpoint/);
    assert.match(String(readSignedCheckpoint('nope')), /not JSON/);
  });
});
