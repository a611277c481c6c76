// The policy reloaded with the config, named after what a reload must not allow: a mix of old
// and new rules, taint shed by a reload, a policy that does not compile taking effect, and an
// unaudited change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../../src/host/config.js';
import { ConfigError, type HostConfig } from '../../../../src/host/configTypes.js';
import { serverLabelsOf } from '../../../../src/host/configPolicy.js';
import { describePolicyChange, policyChangeEntry, refusedReloadEntry, ReloadablePolicy } from '../../../../src/host/policy/policyReload.js';
import { detect, run, text } from './support.js';

const configOf = (policy: Record<string, unknown>, servers: Record<string, unknown> = {}): HostConfig =>
  parseConfig(JSON.stringify({ mcpServers: { notes: { command: 'n' }, web: { command: 'w' }, chat: { command: 'c' } }, switchboard: { servers, policy } }), { file: '/cfg/switchboard.json', env: {} });

const LABELS = { notes: { labels: ['private-data'] }, web: { labels: ['untrusted-content'] }, chat: { labels: ['egress'] } };
const NO_CHAT = { id: 'no-chat', when: 'server.id == "chat"', outcome: 'deny', reason: 'chat is closed' };

function reloadable(config: HostConfig): ReloadablePolicy {
  return new ReloadablePolicy({ canAsk: false, detectSecrets: detect }, config.policy, serverLabelsOf(config.servers));
}

describe('host/policy/policyReload: applying a changed policy', () => {
  it('a deny rule added by a reload applies to the next request, and the change names the rule and both digests', async () => {
    const start = configOf({ trifecta: 'off' });
    const policy = reloadable(start);
    assert.equal((await run([policy.interceptor], { server: 'chat', tool: 'send' })).routed, true);
    const before = policy.digest;
    const change = policy.reload(configOf({ trifecta: 'off', rules: [NO_CHAT] }).policy, serverLabelsOf(start.servers));
    assert.deepEqual(change && { added: change.added, removed: change.removed, changed: change.changed, from: change.from }, { added: ['no-chat'], removed: [], changed: [], from: before });
    assert.notEqual(policy.digest, before);
    const denied = await run([policy.interceptor], { server: 'chat', tool: 'send' });
    assert.equal(denied.routed, false);
    assert.match((denied.error as Error).message, /chat is closed/);
  });

  it('a request already in the policy phase keeps the engine it entered with (no mix of old and new rules)', async () => {
    const policy = reloadable(configOf({ trifecta: 'off' }));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const inFlight = run([policy.interceptor], { server: 'chat', tool: 'send' }, async () => {
      await held;
      return text('sent');
    });
    policy.reload(configOf({ trifecta: 'off', rules: [NO_CHAT] }).policy, {});
    const after = await run([policy.interceptor], { server: 'chat', tool: 'send' });
    release();
    assert.equal((await inFlight).routed, true);
    assert.equal(after.routed, false);
  });

  it('taint is not shed by a reload: a session that read private data and untrusted content is still asked before egress', async () => {
    const start = configOf({}, LABELS);
    const policy = reloadable(start);
    await run([policy.interceptor], { principal: 'p', session: 's', server: 'notes', tool: 'read' }, text('note'));
    await run([policy.interceptor], { principal: 'p', session: 's', server: 'web', tool: 'fetch' }, text('page'));
    const next = configOf({ rules: [{ id: 'noop', when: 'false', outcome: 'deny' }] }, LABELS);
    assert.notEqual(policy.reload(next.policy, serverLabelsOf(next.servers)), undefined);
    const send = await run([policy.interceptor], { principal: 'p', session: 's', server: 'chat', tool: 'send' });
    assert.equal(send.routed, false);
    assert.equal(send.ctx.decisions[0]?.detail?.['rule'], 'builtin.trifecta');
  });

  it('value taint is not shed by a reload: a secret read before it is still caught in a call to another server after it', async () => {
    const policy = reloadable(configOf({ trifecta: 'off' }));
    await run([policy.interceptor], { principal: 'p', session: 's', server: 'notes', tool: 'read' }, text('key sk_test_ABCDEFGHIJKLMNOP1234'));
    policy.reload(configOf({ trifecta: 'off', dryRun: false, rules: [{ id: 'noop', when: 'false', outcome: 'deny' }] }).policy, {});
    const send = await run([policy.interceptor], { principal: 'p', session: 's', server: 'chat', tool: 'send', args: { body: 'sk_test_ABCDEFGHIJKLMNOP1234' } });
    assert.equal(send.routed, false);
    assert.equal(send.ctx.decisions[0]?.detail?.['rule'], 'builtin.value-taint');
  });

  it('a rule that does not compile: the changed config is refused naming the rule, and the running policy keeps denying', async () => {
    const policy = reloadable(configOf({ trifecta: 'off', rules: [NO_CHAT] }));
    const digest = policy.digest;
    assert.throws(
      () => configOf({ trifecta: 'off', rules: [{ id: 'no-chat', when: 'server.idd == "chat"', outcome: 'deny' }] }),
      (e: unknown) => e instanceof ConfigError && /\$\.switchboard\.policy\.rules\[0\]\.when/.test(e.message),
    );
    // The gateway never calls reload with it: the policy in force is the one vetted before.
    assert.equal(policy.digest, digest);
    assert.equal((await run([policy.interceptor], { server: 'chat', tool: 'send' })).routed, false);
  });

  it('reloading the same policy is no change (nothing to audit); removing every rule and built-in passes requests on', async () => {
    const start = configOf({ trifecta: 'off', rules: [NO_CHAT] });
    const policy = reloadable(start);
    assert.equal(policy.reload(configOf({ trifecta: 'off', rules: [NO_CHAT] }).policy, {}), undefined);
    const off = configOf({ trifecta: 'off', valueTaint: 'off', serverRequests: 'off' });
    const change = policy.reload(off.policy, {});
    assert.deepEqual(change?.removed, ['no-chat']);
    assert.deepEqual(change?.settings, ['valueTaint', 'serverRequests']);
    assert.equal(policy.active, false);
    assert.equal((await run([policy.interceptor], { server: 'chat', tool: 'send' })).routed, true);
  });
});

describe('host/policy/policyReload: audit records', () => {
  it('an applied change is a `policy` record naming the rules and digests; a refused reload is a `config` error record', () => {
    const policy = reloadable(configOf({ trifecta: 'off' }));
    const change = policy.reload(configOf({ trifecta: 'ask', rules: [NO_CHAT] }).policy, {});
    assert.ok(change !== undefined);
    const entry = policyChangeEntry(change, Date.UTC(2026, 11, 2));
    assert.equal(entry.kind, 'policy');
    assert.equal(entry.outcome, 'ok');
    assert.match(entry.decisions[0]?.reason ?? '', /rules added: no-chat; settings changed: trifecta/);
    assert.equal(entry.decisions[0]?.reason, describePolicyChange(change));
    const refused = refusedReloadEntry('$.switchboard.policy.rules[0].when: unknown field', 0);
    assert.deepEqual([refused.kind, refused.outcome, refused.error], ['config', 'error', '$.switchboard.policy.rules[0].when: unknown field']);
  });
});
