// The reload gate: a reloaded config that only tightens applies at once; one that weakens is
// held (the running config stays, the log and the store say so) until a person approves the
// exact digest they were shown, through the state store or the console. Approvals are used once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleHttpApi } from '../../../src/console/consoleApi.js';
import type { AuditEntry } from '../../../src/host/audit.js';
import { parseConfig } from '../../../src/host/config.js';
import type { HostConfig } from '../../../src/host/configTypes.js';
import { ConfigReloadGate, NoSuchPendingConfigError, type ConfigApprovalStore, type PendingConfig } from '../../../src/host/configReload.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../src/transport/http/server/types.js';
import { consoleOptions } from '../console/support.js';

const config = (trifecta: string, extra: Record<string, unknown> = {}): HostConfig =>
  parseConfig(JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.js'] }, ...extra }, switchboard: { policy: { trifecta } } }), { file: '/c/switchboard.json', env: {} });

class MemoryConfigApprovals implements ConfigApprovalStore {
  published: PendingConfig | undefined;
  digest: string | undefined;
  setPending(p: PendingConfig | undefined): Promise<void> {
    this.published = p;
    return Promise.resolve();
  }
  pending(): Promise<PendingConfig | undefined> {
    return Promise.resolve(this.published);
  }
  approved(): Promise<string | undefined> {
    return Promise.resolve(this.digest);
  }
  approve(digest: string): Promise<void> {
    this.digest = digest;
    return Promise.resolve();
  }
  consume(): Promise<void> {
    this.digest = undefined;
    return Promise.resolve();
  }
}

function setup() {
  let current = config('deny');
  const applied: HostConfig[] = [];
  const audit: AuditEntry[] = [];
  const warnings: string[] = [];
  const store = new MemoryConfigApprovals();
  const gate = new ConfigReloadGate({
    current: () => current,
    apply: (next) => {
      current = next;
      applied.push(next);
      return Promise.resolve();
    },
    store,
    logger: { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} } as never,
    audit: (e) => {
      audit.push(e);
      return Promise.resolve();
    },
  });
  return { gate, store, applied, audit, warnings, current: () => current };
}

const D1 = `hmac-sha256:${'1'.repeat(64)}`;
const D2 = `hmac-sha256:${'2'.repeat(64)}`;

describe('host/configReload: ConfigReloadGate', () => {
  it('a config that only tightens applies live', async () => {
    const { gate, applied } = setup();
    assert.equal(await gate.offer(config('deny', {}), D1), 'applied');
    assert.equal(applied.length, 1);
    assert.equal(gate.pending, undefined);
  });

  it('config rewrite: trifecta off is held, the running config kept, the log, the store and the audit log say so', async () => {
    const { gate, store, applied, audit, warnings, current } = setup();
    assert.equal(await gate.offer(config('off'), D1), 'held');
    assert.deepEqual(applied, []);
    assert.equal(current().policy.trifecta, 'deny');
    assert.equal(store.published?.digest, D1);
    assert.match(warnings.join('\n'), /config not applied: .*waits for approval[\s\S]*trifecta lowered from deny to off/);
    assert.equal(audit[0]?.kind, 'config');
    assert.equal(audit[0]?.outcome, 'denied');
  });

  it('approval through the state store (switchboard config approve) applies the waiting config once', async () => {
    const { gate, store, applied, audit } = setup();
    await gate.offer(config('off'), D1);
    await store.approve(D1);
    assert.equal(await gate.recheck(), true);
    assert.equal(applied.length, 1);
    assert.equal(store.digest, undefined, 'used once');
    assert.equal(store.published, undefined);
    assert.equal(audit.at(-1)?.outcome, 'ok');
  });

  it('stale approval: an approval of another digest applies nothing', async () => {
    const { gate, store, applied } = setup();
    await gate.offer(config('off'), D2);
    await store.approve(D1);
    assert.equal(await gate.recheck(), false);
    assert.deepEqual(applied, []);
  });

  it('replay: a config the person approved once, written again after a tightening, waits again', async () => {
    const { gate, store, applied } = setup();
    await gate.offer(config('off'), D1);
    await store.approve(D1);
    await gate.recheck();
    assert.equal(await gate.offer(config('deny'), D2), 'applied');
    assert.equal(await gate.offer(config('off'), D1), 'held');
    assert.equal(applied.length, 2);
  });

  it('a newer weakening config replaces the one waiting; approving the old digest is refused', async () => {
    const { gate } = setup();
    await gate.offer(config('off'), D1);
    await gate.offer(config('ask', { evil: { command: 'x' } }), D2);
    assert.equal(gate.pending?.digest, D2);
    await assert.rejects(gate.approve(D1, 'console:admin'), NoSuchPendingConfigError);
  });

  it('console: GET review shows the waiting config; POST review/config/approve with its digest applies it, another digest is a 409', async () => {
    const { gate, applied } = setup();
    await gate.offer(config('off'), D1);
    const ADMIN = 'a'.repeat(43);
    const HOST = '127.0.0.1:8765';
    const api = new ConsoleHttpApi(await consoleOptions(ADMIN, `http://${HOST}`, () => 0, { reload: gate }));
    const call = async (method: string, path: string, body?: unknown): Promise<HttpResponseLike> => {
      const headers: Record<string, string> = { host: HOST, authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
      const request: HttpRequestLike = { method, path, query: undefined, header: (n) => headers[n], ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}) };
      return (await api.handle(request)) as HttpResponseLike;
    };
    const review = JSON.parse(String((await call('GET', '/console/api/review')).body)) as { config: PendingConfig };
    assert.equal(review.config.digest, D1);
    assert.match(review.config.changes[0]?.reason ?? '', /trifecta/);
    assert.equal((await call('POST', '/console/api/review/config/approve', { digest: D2 })).status, 409);
    assert.deepEqual(applied, []);
    assert.equal((await call('POST', '/console/api/review/config/approve', { digest: D1 })).status, 200);
    assert.equal(applied.length, 1);
  });
});
