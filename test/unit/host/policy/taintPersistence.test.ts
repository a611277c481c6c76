// Taint across a gateway restart, named after what a restart must not allow: shedding the
// trifecta's legs by restarting, old taint coming back after it expired, and a broken
// snapshot silently dropping taint.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { policyInterceptor } from '../../../../src/host/policy/policyEngine.js';
import { PersistentTaintStore, type TaintSnapshotRow, type TaintSnapshotStore } from '../../../../src/host/policy/taintPersistence.js';
import { run, text } from './support.js';

/** A snapshot store in memory, as a file would keep it between two gateway processes. */
class MemorySnapshot implements TaintSnapshotStore {
  rows = new Map<string, TaintSnapshotRow>();
  failing = false;
  saves = 0;
  load(now: number): TaintSnapshotRow[] {
    return [...this.rows.values()].filter((r) => r.expires > now);
  }
  save(rows: readonly TaintSnapshotRow[], now: number): void {
    if (this.failing) throw new Error('disk full');
    this.saves++;
    for (const r of rows) this.rows.set(r.key, JSON.parse(JSON.stringify(r)) as TaintSnapshotRow);
    for (const [k, r] of this.rows) if (r.expires <= now) this.rows.delete(k);
  }
  close(): void {}
}

const LABELS = { notes: { labels: ['private-data' as const], toolLabels: {} }, web: { labels: ['untrusted-content' as const], toolLabels: {} }, chat: { labels: ['egress' as const], toolLabels: {} } };

describe('host/policy/taintPersistence: a restart does not shed taint', () => {
  it('the agent restarts the gateway after reading the notes and the page: the new process still asks before egress', async () => {
    const disk = new MemorySnapshot();
    const first = new PersistentTaintStore(disk, { flushMs: 60_000 });
    const before = policyInterceptor({ canAsk: false, labels: LABELS, store: first });
    await run([before], { principal: 'p', session: 's1', server: 'notes', tool: 'read' }, text('note'));
    await run([before], { principal: 'p', session: 's1', server: 'web', tool: 'fetch' }, text('page'));
    first.close(); // the gateway stops (its shutdown flushes)
    const after = policyInterceptor({ canAsk: false, labels: LABELS, store: new PersistentTaintStore(disk) });
    // A new session of the same principal after the restart: the principal's taint came back.
    const send = await run([after], { principal: 'p', session: 's2', server: 'chat', tool: 'send' });
    assert.equal(send.routed, false);
    assert.equal(send.ctx.decisions[0]?.detail?.['rule'], 'builtin.trifecta');
  });

  it('taint written behind the calls is on the snapshot after flushMs without a shutdown (what a kill leaves)', async () => {
    const disk = new MemorySnapshot();
    let fire: () => void = () => undefined;
    const flushed = new Promise<void>((resolve) => (fire = resolve));
    const store = new PersistentTaintStore({ load: (n) => disk.load(n), save: (rows, n) => (disk.save(rows, n), fire()), close: () => undefined }, { flushMs: 5 });
    store.addSource('principal:p', { label: 'private-data', server: 'notes', tool: 'read', at: Date.now(), via: 'config' }, 60_000, Date.now());
    // The flush timer is unref'd (it must not keep a gateway alive): a ref'd deadline keeps this
    // test's process alive until the flush, or fails it after 5 s.
    let deadline: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([flushed, new Promise<never>((_resolve, reject) => (deadline = setTimeout(() => reject(new Error('no flush within 5 s')), 5000)))]);
    clearTimeout(deadline);
    assert.deepEqual([...disk.rows.keys()], ['principal:p']);
    store.close();
  });

  it('taint that expired while the gateway was down does not come back', () => {
    const disk = new MemorySnapshot();
    let clock = 1_000_000;
    const first = new PersistentTaintStore(disk, { now: () => clock });
    first.addSource('principal:p', { label: 'untrusted-content', server: 'web', tool: 'fetch', at: clock, via: 'config' }, 60_000, clock);
    first.close();
    clock += 61_000;
    const second = new PersistentTaintStore(disk, { now: () => clock });
    assert.equal(second.get('principal:p', clock), undefined);
  });

  it('a snapshot that cannot be written: the error is reported, decisions keep the taint from memory, and the next flush retries', () => {
    const disk = new MemorySnapshot();
    const errors: unknown[] = [];
    const store = new PersistentTaintStore(disk, { flushMs: 60_000, onError: (e) => errors.push(e) });
    disk.failing = true;
    store.addSource('principal:p', { label: 'private-data', server: 'notes', tool: 'read', at: Date.now(), via: 'config' }, 60_000, Date.now());
    store.flush();
    assert.match(String(errors[0]), /disk full/);
    assert.equal(store.get('principal:p', Date.now())?.sources.length, 1);
    disk.failing = false;
    store.flush();
    assert.deepEqual([...disk.rows.keys()], ['principal:p']);
    store.close();
  });
});
