// Secrets never reach the logs or the audit log: the redacting logger and audit log mask every
// token a rule or the entropy detector finds, in messages, fields, errors, reasons and details.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditInterceptor } from '../../../../src/host/audit.js';
import type { AuditEntry, AuditRecord } from '../../../../src/host/audit.js';
import type { Decision } from '../../../../src/host/interceptors.js';
import { JsonRpcError } from '../../../../src/jsonrpc/errors.js';
import { Host } from '../../../../src/host/host.js';
import { redactSecrets } from '../../../../src/host/secrets/findSecrets.js';
import { redactAuditEntry, redactingAuditLog, redactingLogger, redactValue } from '../../../../src/host/secrets/redact.js';
import { McpServer } from '../../../../src/server/mcpServer.js';
import { SqliteAuditLog } from '../../../../src/store/sqliteAudit.js';
import { createLineLogger } from '../../../../src/util/logger.js';
import { memoryServers, memorySpec } from '../support/memoryServers.js';

const chars = (n: number, alphabet = 'aZ3kQ9xW7mP2vB5nL8'): string => Array.from({ length: n }, (_, i) => alphabet[(i * 7) % alphabet.length]).join('');
const GITHUB = `ghp_${chars(36)}`;
const STRIPE = `sk_live_${chars(24)}`;
/** A random-looking token no provider rule names. */
const RANDOM = 'q7Xv2LmP9sKd4RtZ8wYb3NcF6hJg';

describe('secrets/redact: text and values', () => {
  it('replaces each secret with [REDACTED:<rule>] and counts them', () => {
    const { text, count } = redactSecrets(`a ${GITHUB} b ${STRIPE} c ${RANDOM}`);
    assert.equal(text, 'a [REDACTED:github-pat] b [REDACTED:stripe-key] c [REDACTED:high-entropy]');
    assert.equal(count, 3);
  });

  it('leaves ordinary text as the same string', () => {
    const text = 'Lists the files of a folder; returns names and sizes (sha256 of each: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08).';
    assert.equal(redactSecrets(text).text, text);
  });

  it('redacts nested values without touching keys, and keeps unchanged parts by identity', () => {
    const untouched = { ok: ['plain'] };
    const value = { token: GITHUB, list: [1, `x ${STRIPE}`], untouched };
    const out = redactValue(value);
    assert.deepEqual(out, { token: '[REDACTED:github-pat]', list: [1, 'x [REDACTED:stripe-key]'], untouched });
    assert.equal(out.untouched, untouched);
    assert.equal(redactValue(untouched), untouched);
  });
});

describe('secrets/redact: the logger', () => {
  it('token in a log line: written without it (message and fields)', () => {
    const lines: string[] = [];
    const logger = redactingLogger(createLineLogger((l) => lines.push(l), 'debug'));
    logger.info(`[github] GET /user with Authorization: token ${GITHUB}`, { event: 'server.stderr', env: { STRIPE_KEY: STRIPE } });
    logger.error(`config has a secret ${RANDOM}`);
    const all = lines.join('');
    assert.ok(!all.includes(GITHUB) && !all.includes(STRIPE) && !all.includes(RANDOM), all);
    assert.match(lines[0] as string, /\[REDACTED:github-pat\]/u);
    assert.match(lines[0] as string, /"STRIPE_KEY":"\[REDACTED:stripe-key\]"/u);
    assert.match(lines[1] as string, /\[REDACTED:high-entropy\]/u);
  });

  it('with the entropy detector off, only provider formats are masked', () => {
    const lines: string[] = [];
    redactingLogger(createLineLogger((l) => lines.push(l)), { entropy: false }).warn(`${GITHUB} ${RANDOM}`);
    assert.match(lines[0] as string, /\[REDACTED:github-pat\] q7Xv2/u);
  });
});

describe('secrets/redact: the audit log', () => {
  it('masks the error, reasons and details; keeps arguments for the digest and ids as they are', () => {
    const entry = redactAuditEntry({
      time: '2026-01-01T00:00:00.000Z',
      kind: 'request',
      method: 'tools/call',
      principal: 'alice',
      session: RANDOM,
      server: 'gh',
      name: 'search',
      arguments: { q: GITHUB },
      decisions: [{ interceptor: 'policy', outcome: 'ask', reason: `value ${STRIPE} came from another server`, detail: { value: GITHUB, approval: RANDOM } }],
      outcome: 'error',
      error: `ERR_MCP_DOWNSTREAM: bad credentials ${GITHUB}`,
      latencyMs: 1,
    });
    assert.equal(entry.error, 'ERR_MCP_DOWNSTREAM: bad credentials [REDACTED:github-pat]');
    assert.equal(entry.decisions[0]?.reason, 'value [REDACTED:stripe-key] came from another server');
    // Details hold ids that look random on purpose: provider rules only.
    assert.deepEqual(entry.decisions[0]?.detail, { value: '[REDACTED:github-pat]', approval: RANDOM });
    assert.deepEqual(entry.arguments, { q: GITHUB });
    assert.equal(entry.session, RANDOM);
  });

  it('token in an error message reaching the audit DB: the stored record holds no token', async () => {
    const sqlite = SqliteAuditLog.open(':memory:');
    const servers = memoryServers(() => {
      const s = new McpServer({ name: 's', version: '1' });
      s.tool('deploy', { inputSchema: { type: 'object', properties: { token: { type: 'string' } } } }, () => {
        throw new JsonRpcError(-32000, `push rejected for https://x-access-token:${GITHUB}@github.com/org/repo.git`);
      });
      return s;
    });
    const host = await Host.open({ servers: [memorySpec('s')], namespacing: 'never', transport: servers.factory, interceptors: [auditInterceptor(redactingAuditLog(sqlite))] });
    await host.start();
    const answer = await host.callTool('deploy', { token: GITHUB }).then((r) => JSON.stringify(r), (e: unknown) => e);
    assert.ok(answer instanceof Error, String(answer));
    await host.close();
    const records = sqlite.read();
    const call = records.find((r) => r.method === 'tools/call');
    assert.equal(call?.outcome, 'error');
    assert.match(call?.error ?? '', /REDACTED/u);
    const stored = JSON.stringify(records);
    assert.ok(!stored.includes(GITHUB), stored);
    // The arguments are only a digest, as before; the chain still verifies.
    assert.match(call?.argumentsDigest ?? '', /^sha256:[0-9a-f]{64}$/u);
    assert.equal(sqlite.verify().ok, true);
    await sqlite.close();
  });

  it('redacts a secret put into a decision that was clean when first recorded, and a name each time it comes (what it remembers cannot leak one)', async () => {
    const seen: AuditEntry[] = [];
    const log = redactingAuditLog({ problem: undefined, append: (entry) => (seen.push(entry), Promise.resolve({} as AuditRecord)) });
    const frozen: Decision = Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) });
    const mutable: { interceptor: string; outcome: 'observe'; reason: string } = { interceptor: 'scanner', outcome: 'observe', reason: 'nothing found' };
    const entry = (name: string): AuditEntry => ({ time: 't', kind: 'request', method: 'resources/read', name, decisions: [frozen, mutable], outcome: 'ok', latencyMs: 1 });
    const clean = entry('file:///notes');
    await log.append(clean);
    assert.equal(seen[0], clean, 'nothing to redact: the entry is stored as it came');
    mutable.reason = `found ${GITHUB}`;
    await log.append(entry(`https://x.test/?token=${GITHUB}`));
    await log.append(entry(`https://x.test/?token=${GITHUB}`));
    for (const stored of seen.slice(1)) {
      assert.equal(stored.decisions[0], frozen);
      assert.match(stored.decisions[1]?.reason ?? '', /REDACTED/u);
      assert.ok(!JSON.stringify(stored).includes(GITHUB), JSON.stringify(stored));
    }
  });

  it('random token in a resources/read URI (no provider format): the stored name holds no token, the rest of the URI stays', async () => {
    const seen: AuditEntry[] = [];
    const log = redactingAuditLog({ problem: undefined, append: (entry) => (seen.push(entry), Promise.resolve({} as AuditRecord)) });
    const uri = `note://shared/docs/${RANDOM}`;
    await log.append({ time: 't', kind: 'request', method: 'resources/read', name: uri, decisions: [], outcome: 'ok', latencyMs: 1 });
    assert.equal(seen[0]?.name, 'note://shared/docs/[REDACTED:high-entropy]');
  });

  it('keeps tool names and plain URIs in the stored name', async () => {
    const seen: AuditEntry[] = [];
    const log = redactingAuditLog({ problem: undefined, append: (entry) => (seen.push(entry), Promise.resolve({} as AuditRecord)) });
    for (const name of ['github__create_pull_request_review_comment', 'file:///home/alice/projects/switchboard/README.md', 'db://orders/550e8400-e29b-41d4-a716-446655440000']) {
      await log.append({ time: 't', kind: 'request', method: 'tools/call', name, decisions: [], outcome: 'ok', latencyMs: 1 });
      assert.equal(seen.at(-1)?.name, name);
    }
  });

  it('passes the inner log\'s problem through (the audit interceptor fails closed on it)', () => {
    const inner = { problem: 'disk full' as string | undefined, append: () => Promise.reject(new Error('not used')) };
    const log = redactingAuditLog(inner);
    assert.equal(log.problem, 'disk full');
    inner.problem = undefined;
    assert.equal(log.problem, undefined);
  });
});
