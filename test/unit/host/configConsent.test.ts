import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { ConfigError } from '../../../src/host/configTypes.js';

const parse = (consent: unknown, env: Record<string, string | undefined> = {}) =>
  parseConfig(JSON.stringify({ mcpServers: { mail: { command: 'x' } }, switchboard: { consent } }), { file: 'sb.json', env });
const fails = (consent: unknown, pattern: RegExp, env: Record<string, string | undefined> = {}): void => {
  assert.throws(() => parse(consent, env), (e: unknown) => e instanceof ConfigError && pattern.test(e.message));
};

describe('switchboard.consent', () => {
  it('defaults: terminal and queue, two minutes, nothing always asked, no webhook; elicitation is off', () => {
    const c = parseConfig('{}', { file: 'sb.json', env: {} }).consent;
    assert.deepEqual(c, { providers: ['terminal', 'queue'], timeoutMs: 120_000, ask: [], webhook: undefined });
  });

  it('reads providers, timeout, always-ask rules and the webhook with its secret from the environment', () => {
    const c = parse(
      { providers: ['webhook', 'queue', 'elicitation'], timeoutMs: 5000, ask: ['mail/send_*'], webhook: { url: 'https://approvals.example/hook', secret: '${env:HOOK_SECRET}' } },
      { HOOK_SECRET: 's'.repeat(24) },
    ).consent;
    assert.deepEqual(c.providers, ['webhook', 'queue', 'elicitation']);
    assert.equal(c.timeoutMs, 5000);
    assert.deepEqual(c.ask, ['mail/send_*']);
    assert.deepEqual(c.webhook, { url: 'https://approvals.example/hook', secret: 's'.repeat(24), timeoutMs: 10_000, replayWindowMs: 300_000 });
  });

  it('a webhook secret written in the config is accepted with a warning', () => {
    const config = parse({ providers: ['webhook'], webhook: { url: 'http://127.0.0.1:9000/hook', secret: 'literal-secret-0123456789' } });
    assert.ok(config.warnings.some((w) => /prefer \$\{env:NAME\}/.test(w)));
  });

  it('refused: an unknown provider, an empty list, the webhook provider without a webhook, a plain-http remote webhook, a short or unset secret, a malformed ask rule', () => {
    fails({ providers: ['slack'] }, /providers\[0\]: expected one of/);
    fails({ providers: [] }, /at least one provider/);
    fails({ providers: ['webhook'] }, /needs a "webhook" section/);
    fails({ providers: ['webhook'], webhook: { url: 'http://approvals.example/hook', secret: '${env:S}' } }, /https URL/, { S: 's'.repeat(20) });
    fails({ providers: ['webhook'], webhook: { url: 'https://a.example/h', secret: '${env:S}' } }, /at least 16 characters/, { S: 'short' });
    fails({ providers: ['webhook'], webhook: { url: 'https://a.example/h', secret: '${env:S}' } }, /environment variable S is not set/);
    fails({ ask: ['send_email'] }, /expected "<server id>\/<tool>"/);
    fails({ approveAll: true }, /approveAll/);
  });
});
