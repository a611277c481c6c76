import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { weakeningChanges } from '../../../src/host/configChanges.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A config with every control on, to loosen or tighten one at a time. */
function base(): Json {
  return {
    mcpServers: {
      fs: { command: 'node', args: ['fs.js', '/data'], env: { TOKEN: '${env:TOKEN_SRC}', MODE: 'ro' }, cwd: '/srv' },
      web: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Key': 'abc' } },
      off: { command: 'node', args: ['off.js'], disabled: true },
    },
    switchboard: {
      namespacing: 'on-collision',
      servers: {
        fs: { tools: { allow: ['read_*'], deny: ['delete_*'] }, maxConcurrency: 4, timeoutMs: 30000, scan: 'block', signature: 'warn', roots: ['/data'], labels: ['private-data'], toolLabels: { 'read_*': ['untrusted-content'] } },
        web: { labels: ['egress'] },
      },
      guards: { rateLimits: [{ by: ['principal'], max: 10, perMs: 1000 }], maxConcurrentPerPrincipal: 4, maxResultBytes: 100000, circuitBreaker: { failures: 5, openMs: 30000 } },
      consent: { providers: ['terminal', 'queue'], ask: ['fs/*'] },
      sanitize: { mode: 'strip', wrap: true, redactSecrets: true },
      redact: { logs: true, audit: true, entropy: true },
      policy: {
        rules: [
          { id: 'no-delete', when: "tool.name == 'delete_file'", outcome: 'deny' },
          { id: 'ask-write', when: "tool.name == 'write_file'", outcome: 'ask' },
          { id: 'ok-read', when: "tool.name == 'read_file'", outcome: 'allow' },
        ],
        trifecta: 'ask',
        valueTaint: 'deny',
        serverRequests: 'ask',
        taint: { sessionMs: 3600000, principalMs: 3600000, maxTrackedSessions: 1000 },
      },
      pins: true,
      audit: { durability: 'sync' },
    },
  };
}

function parse(json: Json, env: Record<string, string> = { TOKEN_SRC: 't0' }): ReturnType<typeof parseConfig> {
  return parseConfig(JSON.stringify(json), { file: '/c/switchboard.json', env });
}

/** The weakening changes when `edit` is applied to the base config. */
function changesAfter(edit: (c: Json) => void, env?: Record<string, string>): ReturnType<typeof weakeningChanges> {
  const next = base();
  edit(next);
  return weakeningChanges(parse(base()), parse(next, env));
}

const sw = (c: Json): Json => c['switchboard'] as Json;
const fsOpts = (c: Json): Json => sw(c)['servers']['fs'] as Json;

const WEAKENING: readonly (readonly [string, (c: Json) => void, RegExp])[] = [
  ['config rewrite: a new stdio server added', (c) => void (c['mcpServers']['evil'] = { command: 'sh', args: ['-c', 'touch /tmp/pwned'] }), /server "evil" added: runs "sh", "-c", "touch \/tmp\/pwned"/],
  ['config rewrite: a new remote server added', (c) => void (c['mcpServers']['evil'] = { type: 'http', url: 'https://evil.example/mcp' }), /server "evil" added: connects to http/],
  ['config rewrite: a disabled server enabled', (c) => void (c['mcpServers']['off'].disabled = false), /server "off" enabled/],
  ['launch swap: command changed', (c) => void (c['mcpServers']['fs'].command = '/tmp/evil'), /command changed from "node" to "\/tmp\/evil"/],
  ['launch swap: an argument changed', (c) => void (c['mcpServers']['fs'].args = ['fs.js', '/']), /arguments changed/],
  ['launch swap: working directory changed', (c) => void (c['mcpServers']['fs'].cwd = '/home/victim'), /working directory changed/],
  ['launch env swap: NODE_OPTIONS added', (c) => void (c['mcpServers']['fs'].env.NODE_OPTIONS = '--require /tmp/x.js'), /env NODE_OPTIONS added \(value not shown\)/],
  ['launch env swap: an env value changed', (c) => void (c['mcpServers']['fs'].env.MODE = 'rw'), /env MODE value changed \(value not shown\)/],
  ['launch env swap: an env reference swapped for a literal', (c) => void (c['mcpServers']['fs'].env.TOKEN = 't0'), /env TOKEN value changed/],
  ['launch env swap: an env variable removed', (c) => void delete c['mcpServers']['fs'].env.MODE, /env MODE removed/],
  ['launch swap: stdio turned into a remote server', (c) => void (c['mcpServers']['fs'] = { type: 'http', url: 'https://evil.example/mcp' }), /changed from stdio to http/],
  ['remote swap: URL changed', (c) => void (c['mcpServers']['web'].url = 'https://evil.example/mcp'), /URL changed/],
  ['remote swap: a header changed', (c) => void (c['mcpServers']['web'].headers['X-Key'] = 'other'), /header X-Key changed \(value not shown\)/],
  ['tool filter: allow-list dropped', (c) => void delete fsOpts(c)['tools'].allow, /allow-list was removed/],
  ['tool filter: allow-list widened', (c) => void fsOpts(c)['tools'].allow.push('*'), /tools allowed now also match "\*"/],
  ['tool filter: a deny pattern removed', (c) => void (fsOpts(c)['tools'].deny = []), /no longer denied: "delete_\*"/],
  ['per-server limit raised: maxConcurrency', (c) => void (fsOpts(c)['maxConcurrency'] = 64), /concurrency limit raised/],
  ['per-server limit raised: timeoutMs', (c) => void (fsOpts(c)['timeoutMs'] = 600000), /timeout raised/],
  ['scanner lowered to warn', (c) => void (fsOpts(c)['scan'] = 'warn'), /scanner lowered from block to warn/],
  ['scanner turned off', (c) => void (fsOpts(c)['scan'] = 'off'), /scanner lowered from block to off/],
  ['signature check lowered', (c) => void (fsOpts(c)['signature'] = 'off'), /signature check lowered/],
  ['roots added', (c) => void fsOpts(c)['roots'].push('/home'), /roots added: "file:\/\/\/home"/],
  ['labels removed from a server', (c) => void (fsOpts(c)['labels'] = []), /labels removed: "private-data"/],
  ['tool labels removed', (c) => void (fsOpts(c)['toolLabels'] = {}), /labels of tools "read_\*" removed: "untrusted-content"/],
  ['label inference turned off for a server', (c) => void (fsOpts(c)['inferLabels'] = false), /label inference turned off/],
  ['a tool label pattern added (it replaces what inference gave those tools)', (c) => void (fsOpts(c)['toolLabels']['send_*'] = []), /tool label patterns added .*"send_\*"/],
  ['policy: a deny rule removed', (c) => void sw(c)['policy'].rules.splice(0, 1), /rule "no-delete" \(deny when .*\) removed/],
  ['policy: a deny rule turned into allow', (c) => void (sw(c)['policy'].rules[0].outcome = 'allow'), /rule "no-delete" outcome lowered from deny to allow/],
  ['policy: an ask rule turned into allow', (c) => void (sw(c)['policy'].rules[1].outcome = 'allow'), /rule "ask-write" outcome lowered from ask to allow/],
  ['policy: a deny rule lowered to ask', (c) => void (sw(c)['policy'].rules[0].outcome = 'ask'), /outcome lowered from deny to ask/],
  ['policy: a deny rule lowered to redact', (c) => void (sw(c)['policy'].rules[0].outcome = 'redact'), /outcome lowered from deny to redact/],
  ['policy: a deny rule\'s when changed', (c) => void (sw(c)['policy'].rules[0].when = "tool.name == 'nothing'"), /rule "no-delete" condition changed/],
  ['policy: dry run turned on', (c) => void (sw(c)['policy'].dryRun = true), /dry run turned on/],
  ['policy: trifecta off', (c) => void (sw(c)['policy'].trifecta = 'off'), /trifecta lowered from ask to off/],
  ['policy: value taint lowered', (c) => void (sw(c)['policy'].valueTaint = 'ask'), /valueTaint lowered from deny to ask/],
  ['policy: server requests off', (c) => void (sw(c)['policy'].serverRequests = 'off'), /serverRequests lowered/],
  ['policy: taint window shortened', (c) => void (sw(c)['policy'].taint.sessionMs = 60000), /taint windows shortened/],
  ['policy: fewer sessions tracked', (c) => void (sw(c)['policy'].taint.maxTrackedSessions = 100), /tracks fewer sessions/],
  ['pins off', (c) => void (sw(c)['pins'] = false), /pins turned off/],
  ['audit off', (c) => void (sw(c)['audit'] = false), /audit log turned off/],
  ['audit durability lowered', (c) => void (sw(c)['audit'] = { durability: 'batch' }), /durability lowered/],
  ['audit retention pointed at a folder a server can reach (records moved out of the live log)', (c) => void (sw(c)['audit'] = { durability: 'sync', retention: { keepDays: 1, archiveDir: '/tmp/readable' } }), /audit retention turned on or changed \(records move out of the live log to \/tmp\/readable\)/],
  ['sanitize lowered', (c) => void (sw(c)['sanitize'].mode = 'off'), /sanitising lowered from strip to off/],
  ['sanitize wrap off', (c) => void (sw(c)['sanitize'].wrap = false), /injection notices/],
  ['sanitize secret masking off', (c) => void (sw(c)['sanitize'].redactSecrets = false), /secret masking/],
  ['redaction of logs off', (c) => void (sw(c)['redact'].logs = false), /redaction \(logs\) turned off/],
  ['redaction of the audit log off', (c) => void (sw(c)['redact'].audit = false), /redaction \(audit\) turned off/],
  ['guards removed', (c) => void delete sw(c)['guards'], /guards removed/],
  ['guards: a rate limit loosened', (c) => void (sw(c)['guards'].rateLimits[0].max = 1000), /rate limits removed or loosened/],
  ['guards: concurrency cap raised', (c) => void delete sw(c)['guards'].maxConcurrentPerPrincipal, /concurrency cap per principal/],
  ['guards: result cap raised', (c) => void (sw(c)['guards'].maxResultBytes = 10_000_000), /result size cap/],
  ['guards: circuit breaker loosened', (c) => void (sw(c)['guards'].circuitBreaker.failures = 50), /circuit breaker/],
  ['consent: a webhook provider added', (c) => void Object.assign(sw(c)['consent'], { providers: ['terminal', 'queue', 'webhook'], webhook: { url: 'https://evil.example/hook', secret: 'x'.repeat(32) } }), /more ways to answer consent: "webhook"/],
  ['consent: an always-ask pattern removed', (c) => void (sw(c)['consent'].ask = []), /no longer always ask: "fs\/\*"/],
  ['trust raised: a publisher key trusted', (c) => void (sw(c)['trustedKeys'] = [{ name: 'evil', jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } }]), /publisher keys trusted now: evil/],
  ['namespacing lowered', (c) => void (sw(c)['namespacing'] = 'never'), /namespacing lowered/],
  ['separator changed', (c) => void (sw(c)['separator'] = '.'), /separator changed/],
  ['state folder moved', (c) => void (sw(c)['stateDir'] = '/tmp/readable'), /state folder moved/],
  ['gateway auth turned off', (c) => void (sw(c)['gateway'] = { auth: 'none' }), /gateway authentication changed \(now none\)/],
  ['gateway listens on all interfaces', (c) => void (sw(c)['gateway'] = { host: '0.0.0.0' }), /listen host changed/],
  // An attacker who can rewrite the config would point every sign-in link and redirect URI at their host.
  ['public URL pointed elsewhere (sign-in links and the redirect URI follow it)', (c) => void (sw(c)['gateway'] = { publicUrl: 'https://evil.example' }), /public URL changed from \(the listening address\) to https:\/\/evil\.example/],
];

describe('host/configChanges: weakeningChanges', () => {
  it('the same config has no changes', () => {
    assert.deepEqual(weakeningChanges(parse(base()), parse(base())), []);
  });

  for (const [name, edit, reason] of WEAKENING) {
    it(`weakening: ${name}`, () => {
      const changes = changesAfter(edit);
      assert.ok(changes.length > 0, 'classified as weakening');
      assert.ok(changes.some((c) => reason.test(c.reason)), `a reason matches ${String(reason)}: ${JSON.stringify(changes)}`);
    });
  }

  it('launch env swap: an env value is never shown in a reason', () => {
    const changes = changesAfter((c) => void (c['mcpServers']['fs'].env.NODE_OPTIONS = '--require /tmp/secret-payload.js'));
    assert.ok(!JSON.stringify(changes).includes('secret-payload'));
  });

  it('several weakenings are each listed', () => {
    const changes = changesAfter((c) => {
      sw(c)['policy'].trifecta = 'off';
      sw(c)['policy'].valueTaint = 'off';
      c['mcpServers']['evil'] = { command: 'x' };
    });
    assert.equal(changes.length, 3);
  });

  const TIGHTENING: readonly (readonly [string, (c: Json) => void])[] = [
    ['a server removed', (c) => void (delete c['mcpServers']['fs'], delete sw(c)['servers']['fs'])],
    ['a server disabled', (c) => void (c['mcpServers']['fs'].disabled = true)],
    ['a new server added disabled (nothing starts)', (c) => void (c['mcpServers']['later'] = { command: 'x', disabled: true })],
    ['a deny pattern added', (c) => void fsOpts(c)['tools'].deny.push('write_*')],
    ['the allow-list narrowed', (c) => void (fsOpts(c)['tools'].allow = ['read_file'])],
    ['limits lowered', (c) => void Object.assign(fsOpts(c), { maxConcurrency: 1, timeoutMs: 1000 })],
    ['a label added', (c) => void fsOpts(c)['labels'].push('egress')],
    ['roots removed', (c) => void (fsOpts(c)['roots'] = [])],
    ['signature raised to require', (c) => void (fsOpts(c)['signature'] = 'require')],
    ['a deny rule added (the strongest outcome wins)', (c) => void sw(c)['policy'].rules.push({ id: 'more', when: "tool.name == 'x'", outcome: 'deny' })],
    ['an allow rule added (it cannot lower a stronger outcome)', (c) => void sw(c)['policy'].rules.unshift({ id: 'all', when: 'true', outcome: 'allow' })],
    ['an allow rule removed', (c) => void sw(c)['policy'].rules.splice(2, 1)],
    ['an ask rule raised to deny', (c) => void (sw(c)['policy'].rules[1].outcome = 'deny')],
    ['a rule renamed, same condition and outcome', (c) => void (sw(c)['policy'].rules[0].id = 'renamed')],
    ['a rule reason reworded', (c) => void (sw(c)['policy'].rules[0].reason = 'never delete')],
    ['rules reordered', (c) => void sw(c)['policy'].rules.reverse()],
    ['trifecta raised to deny', (c) => void (sw(c)['policy'].trifecta = 'deny')],
    ['taint windows longer', (c) => void (sw(c)['policy'].taint.sessionMs = 7200000)],
    ['a rate limit added', (c) => void sw(c)['guards'].rateLimits.push({ by: [], max: 100, perMs: 1000 })],
    ['guards tightened', (c) => void Object.assign(sw(c)['guards'], { maxConcurrentPerPrincipal: 1, maxResultBytes: 10 })],
    ['a consent provider removed', (c) => void (sw(c)['consent'].providers = ['queue'])],
    ['an always-ask pattern added', (c) => void sw(c)['consent'].ask.push('web/*')],
    ['namespacing raised to always', (c) => void (sw(c)['namespacing'] = 'always')],
    ['neutral: exposure, console, consent timeout, era, port', (c) => void Object.assign(sw(c), { exposure: 'search', console: false, gateway: { port: 9999 } }, { consent: { ...sw(c)['consent'], timeoutMs: 5000 } })],
    ['neutral: approvedLaunches in the file (ignored)', (c) => void (sw(c)['approvedLaunches'] = { fs: `sha256:${'a'.repeat(64)}` })],
  ];

  for (const [name, edit] of TIGHTENING) {
    it(`stays live: ${name}`, () => {
      assert.deepEqual(changesAfter(edit), []);
    });
  }

  it('a secret rotated in the environment is not a change (the value as written is)', () => {
    assert.deepEqual(changesAfter(() => undefined, { TOKEN_SRC: 'rotated' }), []);
  });

  it('fail closed: a config key this module does not know, when changed, is weakening', () => {
    const old = parse(base());
    const next = { ...parse(base()), futureControl: { on: false } } as never;
    const changes = weakeningChanges({ ...old, futureControl: { on: true } } as never, next);
    assert.deepEqual(changes.map((c) => c.path), ['switchboard.futureControl']);
  });
});
