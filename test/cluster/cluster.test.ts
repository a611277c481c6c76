// The cluster test: three real `switchboard gateway` processes (dist/cli/main.js) on one
// PostgreSQL schema (`--store …?schema=`, fresh per run) and one Redis key prefix (`--cache
// …?prefix=`), behind HAProxy on loopback (round robin, no stickiness, /healthz checks), each
// fronting the same downstream server over stdio (a fixture of ours with `echo` for the load and
// a prompt for the rate limit). Clients: the official SDKs (v2 on 2026-07-28 and on a
// 2025-11-25 session, v1 on a 2025-11-25 session) and ours.
//
// Each test is named after the failure it guards against: a rate limit that is per instance
// (3× the limit), an acknowledged call missing from the audit or a forked chain after an
// instance dies, and stateful sessions lost with it, and a pin approval undone by a quarantine
// that another instance wrote after it (the lost update of issue #15).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import type { PgDatabase } from '../../src/store/postgres/pgDatabase.js';
import { digestOf } from '../../src/host/pins/pinDigests.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { POSTGRES_URL, REDIS_URL, freshSchema, openTestPostgres, openTestRedis } from '../contract/stores/backends.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { startHaproxy, type RunningHaproxy } from '../../bench/lib/haproxy.js';

const run = promisify(execFile);
const dictionary = fileURLToPath(new URL('./changingServer.mjs', import.meta.url));
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

const schema = freshSchema();
const prefix = `sbtest:${randomBytes(6).toString('hex')}:`;
const store = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
const cache = `${REDIS_URL}?prefix=${encodeURIComponent(prefix)}`;
const PROMPT_LIMIT = 12;

let config: GatewayConfig;
const gateways: RunningGateway[] = [];
let haproxy: RunningHaproxy;
let pg: PgDatabase;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${gateways[0]?.token ?? ''}` });

/** Polls `check` (a call through a gateway) until it holds; fails naming `what` after `timeoutMs`. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pin items stored in PostgreSQL for the cluster's schema. */
async function pinRows(): Promise<{ item_key: string; state: string; trust: string | null }[]> {
  return pg.query('reading pins', "SELECT item_key, state, record->>'trust' AS trust FROM pin_items ORDER BY item_key, state");
}

before(async () => {
  // Opened here too, so the schema and the keys are dropped after the file (and a missing server fails clearly).
  pg = await openTestPostgres({ schema });
  await openTestRedis({ prefix });
  config = await writeConfig(
    { dictionary: { command: process.execPath, args: [dictionary] } },
    { namespacing: 'never', store, cache, guards: { rateLimits: [{ by: ['principal'], max: PROMPT_LIMIT, perMs: 3_600_000, methods: ['prompts/get'] }] } },
  );
  // One after the other: the first pins the servers on first use and creates the shared bearer token (one state folder).
  for (let i = 0; i < 3; i++) gateways.push(await startGateway(config));
  haproxy = await startHaproxy(gateways.map((g) => g.url.host), gateways[0]!.url.pathname);
});

after(async () => {
  await haproxy?.stop();
  for (const g of gateways) await g.stop();
  await config?.remove();
});

describe('cluster: three gateway instances behind HAProxy on PostgreSQL and Redis', { timeout: 100_000 }, () => {
  it(`a rate limit counted per instance (3× the limit): ${PROMPT_LIMIT} prompts/get per principal hold across three instances behind HAProxy`, async () => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new HttpV2(haproxy.url, { requestInit: { headers: auth() } }));
    let answered = 0;
    const refusals: string[] = [];
    for (let i = 0; i < 30; i++) {
      try {
        await client.getPrompt({ name: 'greeting' });
        answered++;
      } catch (error) {
        refusals.push(String(error));
      }
    }
    await client.close();
    assert.equal(answered, PROMPT_LIMIT, `answered ${answered}; refusals: ${refusals.slice(0, 2).join(' | ')}`);
    for (const r of refusals) assert.match(r, /rate limit of 12/);
  });

  it('a pin approval undone by another instance (lost update): a changed tool quarantined on all three instances, approved once, is served by each', async (t) => {
    // Each instance runs its own copy of the downstream server: the definition changes on each.
    const clients = await Promise.all(
      gateways.map(async (g) => {
        const c = new McpClient({ name: 'pins', version: '1' });
        await c.connect(new StreamableHttpClientTransport({ url: g.url, fetch: nodeFetch(), headers: auth() }));
        return c;
      }),
    );
    const lookup = async (c: McpClient): Promise<string> => {
      try {
        return text(await c.callTool('lookup', { word: 'pin' }));
      } catch (error) {
        return String(error);
      }
    };
    for (const c of clients) assert.equal(await lookup(c), 'pin: a word', 'served while pinned on first use');
    await Promise.all(clients.map(async (c) => assert.equal(text(await c.callTool('upgrade', {})), 'upgraded')));
    // Each instance re-lists after the server's list_changed: wait for each to refuse the call.
    for (const [i, c] of clients.entries()) await until(async () => /quarantined/.test(await lookup(c)), `instance ${i} quarantines the changed lookup`);
    const approved = await run(process.execPath, [MAIN, 'pins', 'approve', 'dictionary', 'tool:lookup', '--config', config.file], { cwd: config.dir });
    assert.match(approved.stdout, /approved tool:lookup/);
    const started = Date.now();
    for (const [i, c] of clients.entries()) await until(async () => (await lookup(c)) === 'pin: a word', `instance ${i} serves the approved lookup`);
    const honouredMs = Date.now() - started;
    // Every instance has re-listed and written what it decided by now; the approval is what PostgreSQL holds.
    const rows = await pinRows();
    assert.deepEqual(
      rows.filter((r) => r.item_key === 'tool:lookup').map((r) => [r.state, r.trust]),
      [['approved', 'approved']],
      'one approved row for lookup, no quarantine written back over it',
    );
    assert.deepEqual(rows.filter((r) => r.state === 'pending'), [], 'nothing pending');
    for (const c of clients) assert.equal(await lookup(c), 'pin: a word');
    assert.equal((await pinRows()).length, rows.length, 'the row count stays put after the approval');
    for (const c of clients) await c.close();
    t.diagnostic(`all three instances served the approved lookup ${honouredMs} ms after \`pins approve\` returned`);
  });

  it('an instance SIGKILLed mid-load: no answered call missing from the audit, one chain that verifies, stateful clients carry on in their sessions', async () => {
    const v2modern = new ClientV2({ name: 'v2-modern', version: '2' }, { versionNegotiation: { mode: 'auto' } });
    await v2modern.connect(new HttpV2(haproxy.url, { requestInit: { headers: auth() } }));
    assert.equal(v2modern.getProtocolEra(), 'modern', 'the v2 SDK speaks 2026-07-28 through the cluster');
    const v2legacyTransport = new HttpV2(haproxy.url, { requestInit: { headers: auth() } });
    const v2legacy = new ClientV2({ name: 'v2-legacy', version: '2' }, { versionNegotiation: { mode: 'legacy' } });
    await v2legacy.connect(v2legacyTransport);
    const v1Transport = new HttpV1(haproxy.url, { requestInit: { headers: auth() } });
    const v1 = new ClientV1({ name: 'v1', version: '1' });
    await v1.connect(v1Transport);
    const ours = new McpClient({ name: 'ours', version: '1' });
    await ours.connect(new StreamableHttpClientTransport({ url: haproxy.url, fetch: nodeFetch(), headers: auth() }));
    const sessions = { v2legacy: v2legacyTransport.sessionId, v1: v1Transport.sessionId };
    assert.ok(sessions.v2legacy !== undefined && sessions.v1 !== undefined, 'the 2025-11-25 clients hold sessions');

    const sdkCall = (c: ClientV1 | ClientV2) => async (message: string) => text(await c.callTool({ name: 'echo', arguments: { message } }));
    const clients: [string, (m: string) => Promise<string>][] = [
      ['v2-modern', sdkCall(v2modern)],
      ['v2-legacy', sdkCall(v2legacy)],
      ['v1', sdkCall(v1)],
      ['ours', async (m) => text(await ours.callTool('echo', { message: m }))],
    ];
    const PER_CLIENT = 40;
    const KILL_AFTER = 50;
    const answered: string[] = [];
    let killed = false;
    const outcomes = await Promise.all(
      clients.map(async ([name, call]) => {
        const results: boolean[] = [];
        for (let i = 0; i < PER_CLIENT; i++) {
          const message = `${name}-${i}`;
          try {
            assert.equal(await call(message), message);
            answered.push(message);
            results.push(true);
          } catch {
            results.push(false);
          }
          if (!killed && answered.length >= KILL_AFTER) {
            killed = true;
            gateways[1]!.child.kill('SIGKILL');
          }
        }
        return { name, results };
      }),
    );
    assert.ok(killed, 'the instance was killed during the load');
    for (const { name, results } of outcomes) {
      const failed = results.filter((ok) => !ok).length;
      assert.ok(failed <= 3, `${name}: ${failed} calls failed (only those in flight on the killed instance may)`);
      assert.deepEqual(results.slice(-10), Array(10).fill(true), `${name} carries on: its last 10 calls answered`);
    }
    assert.equal(v2legacyTransport.sessionId, sessions.v2legacy, 'v2 legacy client still in its session');
    assert.equal(v1Transport.sessionId, sessions.v1, 'v1 client still in its session');
    for (const c of [v2modern, v2legacy, v1, ours]) await c.close();

    const verify = await run(process.execPath, [MAIN, 'audit', 'verify', '--store', store, '--json'], { cwd: config.dir });
    const report = JSON.parse(verify.stdout) as { ok: boolean; records: number };
    assert.equal(report.ok, true, verify.stdout);
    const exported = await run(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, maxBuffer: 64 * 1024 * 1024 });
    const records = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { method: string; name?: string; outcome: string; argumentsDigest?: string });
    const audited = new Set(records.filter((r) => r.method === 'tools/call' && r.name === 'echo' && r.outcome === 'ok').map((r) => r.argumentsDigest));
    const missing = answered.filter((m) => !audited.has(digestOf({ message: m })));
    assert.deepEqual(missing, [], 'every call whose answer a client received has its audit record');
    assert.ok(answered.length >= PER_CLIENT * clients.length - 12, `${answered.length} of ${PER_CLIENT * clients.length} calls answered`);
  });
});
