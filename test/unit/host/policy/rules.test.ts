import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../../src/host/config.js';
import { ConfigError } from '../../../../src/host/configTypes.js';
import { DeniedError } from '../../../../src/host/interceptors.js';
import { policyInterceptor } from '../../../../src/host/policy/policyEngine.js';
import { compileRules, evaluateRules, RuleCompileError, type PolicyRule } from '../../../../src/host/policy/rules.js';
import { run, text } from './support.js';

const file = '/cfg/switchboard.json';
const withRules = (rules: unknown[]): string => JSON.stringify({ mcpServers: { s: { command: 'x' } }, switchboard: { policy: { rules } } });

function configError(rules: unknown[]): ConfigError {
  try {
    parseConfig(withRules(rules), { file, env: {} });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('host/policy/rules: compiled at load', () => {
  it('a rule with bad syntax is a ConfigError naming the JSON path of its "when"', () => {
    const error = configError([{ id: 'ok', when: 'true', outcome: 'allow' }, { id: 'bad', when: 'tool.name ==', outcome: 'deny' }]);
    assert.equal(error.path, '$.switchboard.policy.rules[1].when');
    assert.match(error.message, /does not compile/);
  });

  it('a rule naming an unknown field is refused at load, not at first call', () => {
    const error = configError([{ id: 'typo', when: 'tool.nmae == "x"', outcome: 'deny' }]);
    assert.equal(error.path, '$.switchboard.policy.rules[0].when');
    assert.match(error.message, /nmae/);
  });

  it('a rule naming an unknown variable is refused at load', () => {
    assert.match(configError([{ id: 'v', when: 'user.admin', outcome: 'allow' }]).message, /Unknown variable: user/);
  });

  it('a rule that is not a bool expression is refused', () => {
    assert.match(configError([{ id: 'n', when: 'tool.name', outcome: 'deny' }]).message, /must be a bool expression/);
  });

  it('duplicate ids, reserved ids and unknown outcomes are refused with their paths', () => {
    assert.equal(configError([{ id: 'a', when: 'true', outcome: 'allow' }, { id: 'a', when: 'true', outcome: 'deny' }]).path, '$.switchboard.policy.rules[1]');
    assert.equal(configError([{ id: 'builtin.trifecta', when: 'true', outcome: 'allow' }]).path, '$.switchboard.policy.rules[0]');
    assert.equal(configError([{ id: 'a', when: 'true', outcome: 'maybe' }]).path, '$.switchboard.policy.rules[0].outcome');
  });

  it('good rules compile into the config with the policy defaults', () => {
    const config = parseConfig(withRules([{ id: 'no-rm', when: 'tool.name == "s__rm"', outcome: 'deny', reason: 'never rm' }]), { file, env: {} });
    assert.equal(config.policy.compiled.length, 1);
    assert.equal(config.policy.trifecta, 'ask');
    assert.equal(config.policy.dryRun, false);
  });

  it('a config that sets a zero taint window (so reconnecting sheds taint) is refused', () => {
    const text = JSON.stringify({ mcpServers: { s: { command: 'x' } }, switchboard: { policy: { taint: { principalMs: 0 } } } });
    assert.throws(() => parseConfig(text, { file, env: {} }), (e: unknown) => e instanceof ConfigError && e.path === '$.switchboard.policy.taint.principalMs');
  });

  it('compileRules reports the index of a bad rule', () => {
    assert.throws(() => compileRules([{ id: 'a', when: '1 +', outcome: 'deny' }]), (e: unknown) => e instanceof RuleCompileError && e.index === 0);
  });
});

describe('host/policy/rules: outcomes and combination', () => {
  const rules: PolicyRule[] = [
    { id: 'allow-all', when: 'true', outcome: 'allow' },
    { id: 'redact-notes', when: 'server.id == "notes"', outcome: 'redact' },
    { id: 'ask-send', when: 'tool.name.endsWith("send")', outcome: 'ask', reason: 'sending needs a person' },
    { id: 'deny-evil', when: 'has(args.to) && args.to.endsWith("@evil.example")', outcome: 'deny', reason: 'not to evil' },
  ];
  const policy = (extra: Partial<Parameters<typeof policyInterceptor>[0]> = {}) => policyInterceptor({ rules, canAsk: true, redact: () => text('[redacted]'), ...extra });

  it('allow: the call goes through and the decision names the rule', async () => {
    const r = await run([policy()], { server: 'web', tool: 'fetch' });
    assert.equal(r.routed, true);
    assert.deepEqual(r.ctx.decisions.map((d) => [d.outcome, d.detail?.['rule']]), [['allow', 'allow-all']]);
  });

  it('deny wins over ask: the call never reaches the server, the reason is shown', async () => {
    const r = await run([policy()], { server: 'mail', tool: 'send', args: { to: 'x@evil.example' } });
    assert.equal(r.routed, false);
    assert.ok(r.error instanceof DeniedError && r.error.interceptor === 'policy');
    assert.match(r.error.message, /not to evil/);
    assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'deny-evil');
  });

  it('ask wins over redact and allow: recorded for the consent interceptor with its reasons', async () => {
    const r = await run([policy()], { server: 'mail', tool: 'send', args: { to: 'me@home.example' } });
    assert.equal(r.routed, true);
    const d = r.ctx.decisions[0];
    assert.equal(d?.outcome, 'ask');
    assert.deepEqual(d?.detail, { rule: 'ask-send', reasons: ['sending needs a person'] });
  });

  it('ask without a consent provider is a denial that says so', async () => {
    const r = await run([policy({ canAsk: false })], { server: 'mail', tool: 'send', args: {} });
    assert.equal(r.routed, false);
    assert.match((r.error as Error).message, /sending needs a person \(this needs a person's consent and no consent provider is configured\)/);
  });

  it('redact: the result passes the injected redactor', async () => {
    const r = await run([policy()], { server: 'notes', tool: 'read' }, text('secret note'));
    assert.deepEqual(r.result, text('[redacted]'));
    assert.equal(r.ctx.decisions[0]?.outcome, 'change');
    assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'redact-notes');
  });

  it('redact with no redactor configured fails closed', async () => {
    const r = await run([policyInterceptor({ rules, canAsk: true })], { server: 'notes', tool: 'read' });
    assert.equal(r.routed, false);
    assert.match((r.error as Error).message, /no redactor is configured/);
  });

  it('no rule matches: allowed by rule "default"', async () => {
    const r = await run([policyInterceptor({ rules: [{ id: 'x', when: 'false', outcome: 'deny' }], canAsk: false })], {});
    assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'default');
  });

  it('a rule that throws while evaluating fails closed (deny, with the rule id)', async () => {
    const p = policyInterceptor({ rules: [{ id: 'fragile', when: 'args.to.endsWith("@x")', outcome: 'allow' }], canAsk: false });
    const r = await run([p], { args: {} });
    assert.equal(r.routed, false);
    assert.ok(r.error instanceof DeniedError);
    assert.match(r.error.message, /rule fragile failed to evaluate/);
    assert.equal(r.ctx.decisions[0]?.detail?.['rule'], 'fragile');
  });

  it('an allow rule cannot override a deny rule that matched later in the list', () => {
    const verdict = evaluateRules(compileRules([{ id: 'a', when: 'true', outcome: 'allow' }, { id: 'd', when: 'true', outcome: 'deny' }]), {
      principal: { id: '', subject: '', scopes: [], claims: {}, tenant: '' },
      server: { id: 's', identity: '', labels: [], auth: 'shared', tenant: '' },
      tool: { name: 't', annotations: {}, labels: [] },
      method: 'tools/call',
      serverMethod: '',
      args: {},
      session: { id: 'x', labels: [], sources: [] },
      connected: true,
    });
    assert.equal(verdict.outcome, 'deny');
    assert.deepEqual(verdict.hits.map((h) => h.rule), ['a', 'd']);
  });

  it('rules see principal claims, annotations (hints) and labels', async () => {
    const p = policyInterceptor({
      rules: [{ id: 'interns', when: 'principal.claims.role == "intern" && tool.annotations.destructiveHint == true && "destructive" in tool.labels', outcome: 'deny' }],
      canAsk: false,
      trifecta: 'off',
    });
    const denied = await run([p], { principal: 'u1', claims: { role: 'intern' }, annotations: { destructiveHint: true } });
    assert.equal(denied.routed, false);
    const allowed = await run([p], { principal: 'u2', claims: { role: 'admin' }, annotations: { destructiveHint: true } });
    assert.equal(allowed.routed, true);
  });

  it('rules see what entered the session: its labels and its sources (server, tool, time)', async () => {
    const labels = { notes: { labels: ['private-data' as const], toolLabels: {} } };
    const p = policyInterceptor({
      rules: [
        { id: 'after-notes', when: 'session.sources.exists(s, s.server == "notes" && s.tool == "notes__read" && s.at.startsWith("20")) && "private-data" in session.labels && tool.name == "chat__send"', outcome: 'deny' },
        { id: 'by-index', when: 'size(session["sources"]) > 0 && tool.name == "chat__post"', outcome: 'deny' },
      ],
      labels,
      canAsk: false,
      trifecta: 'off',
    });
    assert.equal((await run([p], { session: 's1', server: 'chat', tool: 'send' })).routed, true);
    await run([p], { session: 's1', server: 'notes', tool: 'read' }, text('a note'));
    assert.equal((await run([p], { session: 's1', server: 'chat', tool: 'send' })).routed, false);
    assert.equal((await run([p], { session: 's1', server: 'chat', tool: 'post' })).routed, false);
    assert.equal((await run([p], { session: 's1', server: 'chat', tool: 'other' })).routed, true);
  });
});

describe('host/policy: dry run', () => {
  it('records what would happen and enforces nothing (no ask reaches consent)', async () => {
    const p = policyInterceptor({ rules: [{ id: 'no', when: 'true', outcome: 'deny', reason: 'nope' }], canAsk: false, dryRun: true });
    const r = await run([p], {});
    assert.equal(r.routed, true);
    const d = r.ctx.decisions[0];
    assert.equal(d?.outcome, 'observe');
    assert.deepEqual(d?.detail, { rule: 'no', reasons: ['nope'], dryRun: true, wouldBe: 'deny' });
    const asked = await run([policyInterceptor({ rules: [{ id: 'a', when: 'true', outcome: 'ask' }], canAsk: true, dryRun: true })], {});
    assert.ok(!asked.ctx.decisions.some((x) => x.outcome === 'ask'));
  });

  it('hides nothing from lists, but records what it would hide', async () => {
    const p = policyInterceptor({ rules: [{ id: 'hide', when: 'tool.name == "s__t"', outcome: 'deny' }], canAsk: false, dryRun: true });
    const listed = [{ name: 's__t', serverId: 's', definition: { name: 't' }, tool: { name: 's__t' } }];
    const r = await run([p], { method: 'tools/list' }, listed);
    assert.equal((r.result as unknown[]).length, 1);
    assert.equal(r.ctx.decisions[0]?.detail?.['wouldBe'], 'deny');
  });
});

describe('host/policy: lists', () => {
  it('items a rule denies are hidden from the list, with the rule recorded', async () => {
    const p = policyInterceptor({ rules: [{ id: 'no-admin', when: 'tool.name.startsWith("admin__") && principal.claims.role != "admin"', outcome: 'deny' }], canAsk: false });
    const listed = [
      { name: 'admin__drop', serverId: 'admin', definition: { name: 'drop' }, tool: { name: 'admin__drop' } },
      { name: 'notes__read', serverId: 'notes', definition: { name: 'read' }, tool: { name: 'notes__read' } },
    ];
    const r = await run([p], { method: 'tools/list', principal: 'u', claims: { role: 'user' } }, listed);
    assert.deepEqual((r.result as { name: string }[]).map((t) => t.name), ['notes__read']);
    assert.deepEqual(r.ctx.decisions[0]?.detail, { rule: 'no-admin', rules: ['no-admin'], hidden: ['admin:drop'] });
  });
});
