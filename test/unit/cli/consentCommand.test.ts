import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { scopeOf } from '../../../src/cli/commands/consent.js';
import { UsageError } from '../../../src/cli/args.js';
import { terminalConsentProvider } from '../../../src/cli/consentTerminal.js';
import type { ConsentRequest } from '../../../src/host/consent/consentTypes.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');

describe('switchboard consent approve: scope flags', () => {
  it('no flag: this exact call, once', () => {
    assert.deepEqual(scopeOf({}, NOW), { match: 'call', duration: 'once' });
  });

  it('--session, --tool --session, --pattern with --for, --tool --until', () => {
    assert.deepEqual(scopeOf({ session: true }, NOW), { match: 'call', duration: 'session' });
    assert.deepEqual(scopeOf({ tool: true, session: true }, NOW), { match: 'tool', duration: 'session' });
    assert.deepEqual(scopeOf({ pattern: ['path=/tmp/*'], for: '30m' }, NOW), { match: 'pattern', duration: 'until', patterns: { path: '/tmp/*' }, expiresAt: '2026-12-01T10:30:00.000Z' });
    assert.deepEqual(scopeOf({ tool: true, until: '2026-12-02T00:00:00Z' }, NOW), { match: 'tool', duration: 'until', expiresAt: '2026-12-02T00:00:00.000Z' });
  });

  it('refused: a widening without a lifetime, --tool with --pattern, a malformed pattern or duration', () => {
    assert.throws(() => scopeOf({ tool: true }, NOW), UsageError);
    assert.throws(() => scopeOf({ tool: true, pattern: ['a=*'], session: true }, NOW), /exclude each other/);
    assert.throws(() => scopeOf({ pattern: ['nope'], session: true }, NOW), /NAME=GLOB/);
    assert.throws(() => scopeOf({ for: 'forever' }, NOW), /duration like/);
    assert.throws(() => scopeOf({ until: 'tomorrow' }, NOW), /not an ISO 8601 time/);
  });
});

const request: ConsentRequest = {
  id: 'r1',
  createdAt: '2026-12-01T10:00:00Z',
  expiresAt: '2026-12-01T10:02:00Z',
  method: 'tools/call',
  server: { id: 'mail', identity: 'http:https://mail.example/mcp' },
  tool: 'send',
  arguments: { to: 'bob@example.com', body: 'hi \u202e evil \u001b[2J' },
  reasons: ['egress after private data'],
  session: 's1',
  binding: { serverIdentity: 'http:https://mail.example/mcp', tool: 'send', definitionDigest: 'sha256:d', argumentsDigest: 'sha256:a' },
};

function terminal(answer: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => {
    shown += c.toString();
    if (shown.includes('Allow?')) input.write(`${answer}\n`);
  });
  return { provider: terminalConsentProvider({ input, output }), shown: () => shown };
}

describe('terminal consent prompt', () => {
  it('shows the full request with hidden characters escaped; y approves once', async () => {
    const t = terminal('y');
    const answer = await t.provider.ask(request, { signal: new AbortController().signal });
    assert.deepEqual(answer, { approved: true, scope: { match: 'call', duration: 'once' }, approver: 'terminal', mediated: 'person' });
    assert.match(t.shown(), /"to": "bob@example\.com"/);
    assert.match(t.shown(), /\\u202e evil \\u001b\[2J/, 'bidi override and ANSI escape are shown escaped');
    assert.doesNotMatch(t.shown(), /\u202e/);
    assert.match(t.shown(), /egress after private data/);
  });

  it('t approves the tool for the session; Enter denies', async () => {
    assert.deepEqual((await terminal('t').provider.ask(request, { signal: new AbortController().signal })) as unknown, { approved: true, scope: { match: 'tool', duration: 'session' }, approver: 'terminal', mediated: 'person' });
    const denied = await terminal('').provider.ask(request, { signal: new AbortController().signal });
    assert.equal(denied.approved, false);
  });

  it('answered elsewhere first: the prompt is cancelled', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const controller = new AbortController();
    const provider = terminalConsentProvider({ input, output });
    const pending = provider.ask(request, { signal: controller.signal });
    output.once('data', () => controller.abort());
    await assert.rejects(pending, /abort/i);
  });
});
