// One policy for a cluster (PostgreSQL `cluster_policy`, NOTIFY switchboard_policy): a change
// published through one instance is enforced by another within a second, and a stale config
// file never rolls the cluster's policy back. Two instances = two connections on one schema,
// each with its own ReloadablePolicy and ClusterPolicy, as `switchboard gateway --store` wires them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEntry } from '../../../src/host/audit.js';
import { ClusterPolicy } from '../../../src/host/clusterPolicy.js';
import { readPolicy, type PolicyConfig } from '../../../src/host/configPolicy.js';
import { ConfigReader } from '../../../src/host/configRead.js';
import { ReloadablePolicy } from '../../../src/host/policy/policyReload.js';
import { PgPolicyStore } from '../../../src/store/postgres/pgPolicy.js';
import { run } from '../../unit/host/policy/support.js';
import { freshSchema, openTestPostgres } from './backends.js';

const DENY_DELETE = { id: 'no-delete', when: 'tool.name.endsWith("delete")', outcome: 'deny', reason: 'deleting is not allowed' };
const policyOf = (rules: unknown[]): PolicyConfig => readPolicy(new ConfigReader('switchboard.json'), { rules, trifecta: 'off', valueTaint: 'off', serverRequests: 'off' });
const OLD = policyOf([]);
const NEW = policyOf([DENY_DELETE]);

/** One gateway instance: its running policy following the cluster. */
async function instance(schema: string, name: string, file: PolicyConfig, publish = false) {
  const db = await openTestPostgres({ schema });
  const policy = new ReloadablePolicy({ canAsk: false }, file, {});
  const audit: AuditEntry[] = [];
  const warnings: string[] = [];
  const cluster = new ClusterPolicy(new PgPolicyStore(db), policy, { instance: name, warn: (l) => warnings.push(l), audit: async (e) => void audit.push(e) });
  await cluster.start(file, {}, publish);
  const call = async (tool: string) => run([policy.interceptor], { principal: 'p', server: 'files', tool });
  return { db, policy, cluster, audit, warnings, call, stop: () => cluster.stop() };
}

/** Resolves once `check` holds, polling every 10 ms; fails after `ms`. */
async function within(ms: number, check: () => boolean | Promise<boolean>, what: string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

describe('cluster policy in PostgreSQL', () => {
  it('the first instance publishes version 1; one with the same file runs it', async () => {
    const schema = freshSchema();
    const a = await instance(schema, 'a', OLD);
    const b = await instance(schema, 'b', OLD);
    assert.equal(a.cluster.version, 1);
    assert.equal(b.cluster.version, 1);
    assert.deepEqual(b.warnings, []);
    a.stop();
    b.stop();
  });

  it('a policy changed in one instance\'s config is enforced by the other within a second, audited with version, publisher and digests', async () => {
    const schema = freshSchema();
    const a = await instance(schema, 'gateway-a', OLD);
    const b = await instance(schema, 'gateway-b', OLD);
    assert.equal((await b.call('delete')).routed, true);
    await a.cluster.fileChanged(NEW, {});
    assert.equal((await a.call('delete')).routed, false, 'the publishing instance applies it at once');
    const ms = await within(1000, async () => (await b.call('delete')).routed === false, 'gateway B denies the newly denied call');
    assert.ok(ms <= 1000);
    const r = await b.call('delete');
    assert.match((r.error as Error).message, /deleting is not allowed/);
    assert.equal(b.cluster.version, 2);
    const record = b.audit.find((e) => e.kind === 'policy');
    assert.deepEqual(record?.decisions[0]?.detail?.['cluster'], { version: 2, publishedBy: 'gateway-a', published: false });
    assert.deepEqual(record?.decisions[0]?.detail?.['added'], ['no-delete']);
    assert.match(record?.decisions[0]?.reason ?? '', /sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}; cluster policy version 2 published by gateway-a/);
    a.stop();
    b.stop();
  });

  it('policy rollback by a stale config file: an instance starting with the old file runs the cluster\'s newer policy, and editing the rest of its file does not publish the old one', async () => {
    const schema = freshSchema();
    const a = await instance(schema, 'a', OLD);
    await a.cluster.fileChanged(NEW, {});
    const stale = await instance(schema, 'stale', OLD);
    assert.equal((await stale.call('delete')).routed, false, 'the stale instance denies what the cluster denies');
    assert.match(stale.warnings.join('\n'), /this instance's config has policy sha256:.* the cluster runs version 2 .*running the cluster's/);
    // The file is read again (a server added, say): its policy did not change, so nothing is published.
    await stale.cluster.fileChanged(OLD, {});
    const store = new PgPolicyStore(a.db);
    assert.equal((await store.current())?.version, 2);
    assert.equal((await a.call('delete')).routed, false, 'the cluster keeps the newer policy');
    a.stop();
    stale.stop();
  });

  it('--publish-policy publishes the starting instance\'s file on purpose, and the others follow', async () => {
    const schema = freshSchema();
    const a = await instance(schema, 'a', NEW);
    const b = await instance(schema, 'b', OLD, true);
    assert.equal(b.cluster.version, 2);
    await within(1000, async () => (await a.call('delete')).routed === true, 'gateway A follows the published policy');
    a.stop();
    b.stop();
  });

  it('a forged or unreadable version in the table is not applied: the running policy stays, the refusal is audited', async () => {
    const schema = freshSchema();
    const a = await instance(schema, 'a', NEW);
    await a.db.query('forging', `UPDATE cluster_policy SET version = 7, digest = 'sha256:forged', document = '{"policy":{"rules":[{"id":"x","when":"nonsense((","outcome":"allow"}]}}'::jsonb`);
    await a.db.query('notifying', `SELECT pg_notify('switchboard_policy', $1)`, [`${schema}|7`]);
    await within(1000, () => a.audit.some((e) => e.kind === 'config'), 'the refusal is audited');
    assert.equal((await a.call('delete')).routed, false, 'the running policy still denies');
    assert.match(a.warnings.join('\n'), /the cluster's policy version 7.*the running policy is kept/);
    a.stop();
  });
});
