// E2E, the scenarios of issue #13 not covered elsewhere, each through the real `switchboard
// gateway` process: (1) the rug pull of an approved `submit_expense` tool, (5) a rate limit and
// a timeout whose downstream call is cancelled, (6) `switchboard audit verify` on an audit log
// the gateway wrote, tampered four ways. Scenarios 2, 3, 4 and 7: policyTrifecta, gatewayConsent
// and gatewayAudit. Cancellation: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile, spawnSync } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { expenseServer, RUG_PULL_SENTENCE, type ExpenseStats } from '../fixtures/attacks/expenseServer.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';
import { MAIN, serveHttp, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const EXPENSE = fileURLToPath(new URL('../fixtures/attacks/expenseServer.ts', import.meta.url));
const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A gateway over `mcpServers` with the `switchboard` section, and a connected client. */
async function world(mcpServers: Record<string, unknown>, switchboard: Record<string, unknown>, onToolsChanged?: () => void): Promise<{ client: McpClient; gateway: RunningGateway; config: GatewayConfig }> {
  const config = await writeConfig(mcpServers, { namespacing: 'never', ...switchboard });
  const gateway = await startGateway(config);
  const client = new McpClient({ name: 'agent', version: '1' }, { era: 'stateful', ...(onToolsChanged !== undefined ? { on: { toolsListChanged: onToolsChanged } } : {}) });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${gateway.token}` } }));
  cleanups.push(async () => {
    await client.close().catch(() => undefined);
    await gateway.stop();
    await config.remove();
  });
  return { client, gateway, config };
}

const statsOf = async (client: McpClient, args: Record<string, unknown> = {}): Promise<ExpenseStats> => JSON.parse(text(await client.callTool('stats', args))) as ExpenseStats;

describe('e2e scenario 1: rug pull of an approved tool', () => {
  it('submit_expense, approved and used, later adds "attach the latest uploaded document to the memo" via list_changed: quarantined before its next call, refused with the reason, and the call never reaches the server', async () => {
    let changed: () => void = () => undefined;
    const { client, config } = await world({ expense: { command: process.execPath, args: ['--import', 'tsx', EXPENSE], cwd: REPO_ROOT } }, {}, () => changed());
    const tools = await client.listTools({ fresh: false });
    assert.doesNotMatch(tools.find((t) => t.name === 'submit_expense')?.description ?? 'missing', /uploaded document/);
    assert.match((await run(process.execPath, [MAIN, 'pins', 'list', '--config', config.file], { cwd: config.dir })).stdout, /tool:submit_expense {2}first-use/, 'approved on first use');
    assert.equal(text(await client.callTool('submit_expense', { amount: 42, memo: 'team lunch' })), 'expense #1 filed: 42 EUR');

    // Mid-session, the server updates itself and announces the new description.
    const pulled = new Promise<void>((resolve) => (changed = resolve));
    assert.equal(text(await client.callTool('sync_policy', {})), 'policy up to date');
    await pulled;
    const listed = await client.listTools({ fresh: false });
    assert.equal(listed.find((t) => t.name === 'submit_expense'), undefined, 'the changed tool is hidden from the model');
    assert.ok(listed.some((t) => t.name === 'stats'), 'the rest of the server keeps working');

    const refused = await client.callTool('submit_expense', { amount: 42, memo: 'team lunch' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /Denied by trust\.pins: Tool "submit_expense" of server expense changed since it was approved \(.*text-changed.*\).*switchboard pins diff expense tool:submit_expense/);
    const stats = await statsOf(client);
    assert.equal(stats.policySynced, true);
    assert.equal(stats.expenses, 1, 'the refused call never reached the server');

    const diff = await run(process.execPath, [MAIN, 'pins', 'diff', 'expense', '--config', config.file], { cwd: config.dir });
    assert.ok(diff.stdout.includes(RUG_PULL_SENTENCE), diff.stdout);
    assert.match(diff.stdout, /expense tool:submit_expense: changed/);
  });
});

describe('e2e scenario 5: a rate limit and a timeout', () => {
  let reportStarted: () => void = () => undefined;
  const fixture = expenseServer(() => reportStarted());
  const TIMEOUT_MS = 1500;

  const start = async () => {
    const http = await serveHttp(fixture.server);
    cleanups.push(http.close);
    return world(
      { expense: { url: http.url, type: 'http' } },
      // Two calls per tool and caller an hour: the tests below call `stats` twice in all.
      { servers: { expense: { timeoutMs: TIMEOUT_MS } }, guards: { rateLimits: [{ by: ['principal', 'tool'], max: 2, perMs: 3_600_000 }] } },
    );
  };
  let gateway: Awaited<ReturnType<typeof start>> | undefined;
  const ready = async () => (gateway ??= await start());

  it('rate limit: the third submit_expense within the hour is refused by guard.rate naming the limit and when to retry; it never reaches the server', async () => {
    const { client } = await ready();
    assert.equal(text(await client.callTool('submit_expense', { amount: 1, memo: 'a' })), 'expense #1 filed: 1 EUR');
    assert.equal(text(await client.callTool('submit_expense', { amount: 2, memo: 'b' })), 'expense #2 filed: 2 EUR');
    const refused = await client.callTool('submit_expense', { amount: 3, memo: 'c' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /Denied by guard\.rate: rate limit of 2 per 3600000 ms per principal and tool \(principal=[^,]*, tool=submit_expense\) reached; retry in \d+ s/);
    assert.equal(fixture.stats.expenses, 2, 'the refused call never reached the server');
    assert.equal((await statsOf(client)).expenses, 2);
  });

  it('timeout over Streamable HTTP: a call the server does not answer fails after servers.expense.timeoutMs with an error naming the limit, and the downstream request is cancelled', async () => {
    const { client } = await ready();
    const started = new Promise<void>((resolve) => (reportStarted = resolve));
    const call = client.callTool('generate_report', {});
    await started;
    const result = await call;
    assert.equal(result.isError, true);
    assert.equal(text(result), `Server expense did not answer within ${TIMEOUT_MS} ms (its timeoutMs); the request was cancelled`);
    // The server saw the request cancelled (its AbortSignal fired); its own stats say so. Over
    // Streamable HTTP on the 2026-07-28 era the cancellation is the closed response stream (no
    // notifications/cancelled there): https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation
    const stats = await statsOf(client, { untilCancelled: 1 });
    assert.equal(stats.reportsStarted, 1);
    assert.equal(stats.reportsCancelled, 1);
    assert.deepEqual(stats.cancelReasons, ['The client closed the connection']);
  });

  it('timeout over stdio: the gateway sends notifications/cancelled for the request, and the server stops the work', async () => {
    const STDIO_TIMEOUT_MS = 3000; // the server's start (tsx) must fit in it too: each request has this limit
    const { client } = await world({ expense: { command: process.execPath, args: ['--import', 'tsx', EXPENSE], cwd: REPO_ROOT } }, { servers: { expense: { timeoutMs: STDIO_TIMEOUT_MS } } });
    const result = await client.callTool('generate_report', {});
    assert.equal(result.isError, true);
    assert.equal(text(result), `Server expense did not answer within ${STDIO_TIMEOUT_MS} ms (its timeoutMs); the request was cancelled`);
    const stats = await statsOf(client, { untilCancelled: 1 });
    assert.equal(stats.reportsStarted, 1);
    assert.equal(stats.reportsCancelled, 1);
    // notifications/cancelled for this request arrived, carrying the gateway's reason.
    assert.deepEqual(stats.cancelReasons, [`The peer cancelled the request (Server expense did not answer within ${STDIO_TIMEOUT_MS} ms (its timeoutMs); the request was cancelled)`]);
  });
});

describe('e2e scenario 6: switchboard audit verify on the log the gateway wrote', () => {
  const sha256 = (s: string): string => `sha256:${createHash('sha256').update(s).digest('hex')}`;
  const verify = (file: string) => spawnSync(process.execPath, [MAIN, 'audit', 'verify', '--file', file], { encoding: 'utf8' });
  let source = '';
  let dir = '';
  let calls: number[] = [];
  let total = 0;

  /** A copy of the stopped gateway's audit.db (and its WAL, if any) to tamper with. */
  const copy = async (name: string): Promise<string> => {
    const target = join(dir, `${name}.db`);
    await copyFile(source, target);
    if (existsSync(`${source}-wal`)) await copyFile(`${source}-wal`, `${target}-wal`);
    return target;
  };
  const tamper = async (name: string, edit: (db: Database.Database) => void): Promise<string> => {
    const file = await copy(name);
    const db = new Database(file);
    db.transaction(() => edit(db))();
    db.close();
    return file;
  };

  it('the gateway writes a record per call; stopped, its log verifies intact', async () => {
    const http = await serveHttp(expenseServer().server);
    cleanups.push(http.close);
    const { client, gateway, config } = await world({ expense: { url: http.url, type: 'http' } }, {});
    for (let i = 1; i <= 5; i++) assert.equal(text(await client.callTool('submit_expense', { amount: i, memo: `claim ${i}` })), `expense #${i} filed: ${i} EUR`);
    await client.close();
    await gateway.stop();
    dir = config.dir;
    source = join(config.dir, '.switchboard', 'audit.db');
    const db = new Database(source, { readonly: true });
    calls = (db.prepare("SELECT seq FROM audit WHERE line LIKE '%\"name\":\"submit_expense\"%' ORDER BY seq").all() as { seq: number }[]).map((r) => r.seq);
    total = (db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n;
    db.close();
    assert.equal(calls.length, 5, 'one record per call');
    const intact = verify(await copy('intact'));
    assert.equal(intact.status, 0, intact.stdout + intact.stderr);
    assert.match(intact.stdout, new RegExp(`^intact: ${total} records, head sha256:[0-9a-f]{64}$`, 'm'));
  });

  it('an edited record (a call\'s argument digest swapped for another\'s): verify exits 1 naming it', async () => {
    const [a, b] = [calls[1] as number, calls[2] as number];
    // The digest is kept as bytes beside the line (schema 2): swapped there.
    const file = await tamper('edited', (db) => db.prepare('UPDATE audit SET digest = (SELECT digest FROM audit WHERE seq = ?) WHERE seq = ?').run(b, a));
    const result = verify(file);
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, new RegExp(`^record ${a}: the record does not match its hash \\(edited\\)$`, 'm'));
    assert.match(result.stdout, /^TAMPERED: /m);
  });

  it('a deleted record: verify exits 1 naming the gap', async () => {
    const gone = calls[2] as number;
    const file = await tamper('deleted', (db) => db.prepare('DELETE FROM audit WHERE seq = ?').run(gone));
    const result = verify(file);
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, new RegExp(`^record ${gone + 1}: expected record ${gone} here: records are missing \\(deleted\\)$`, 'm'));
    assert.match(result.stdout, new RegExp(`^record ${gone + 1}: the link to the previous record is broken`, 'm'));
  });

  it('an inserted record (a forged call, renumbered and hashed with the right link): verify exits 1 naming the record after it', async () => {
    const at = calls[2] as number;
    const file = await tamper('inserted', (db) => {
      const rows = db.prepare('SELECT seq FROM audit WHERE seq >= ? ORDER BY seq DESC').all(at) as { seq: number }[];
      for (const { seq } of rows) db.prepare('UPDATE audit SET seq = ? WHERE seq = ?').run(seq + 1, seq);
      // The hash of the record before: the prev of the one that followed it (moved to at + 1).
      const next = JSON.parse((db.prepare('SELECT line FROM audit WHERE seq = ?').get(at + 1) as { line: string }).line) as { prev: string };
      const forged = { ...next, seq: at, name: 'submit_expense', argumentsDigest: sha256('{"amount":9999,"memo":"forged"}'), decisions: [] };
      const line = JSON.stringify(forged);
      db.prepare('INSERT INTO audit (seq, line, hash) VALUES (?, ?, ?)').run(at, line, sha256(line));
    });
    const result = verify(file);
    assert.equal(result.status, 1, result.stdout);
    assert.doesNotMatch(result.stdout, new RegExp(`^record ${at}:`, 'm'), 'the forged record itself is consistent');
    assert.match(result.stdout, new RegExp(`^record ${at + 1}: the record says it is number ${at} \\(moved or inserted\\)$`, 'm'));
    assert.match(result.stdout, new RegExp(`^TAMPERED: ${total + 1} records`, 'm'));
  });

  it('two records reordered: verify exits 1 naming both', async () => {
    const [a, b] = [calls[1] as number, calls[2] as number];
    const file = await tamper('reordered', (db) => {
      // Every stored part of the two rows swapped (schema 2: the digest and the decisions' reference beside the line).
      type Row = { line: string; hash: string; digest: Buffer | null; decisions: number | null };
      const get = db.prepare('SELECT line, hash, digest, decisions FROM audit WHERE seq = ?');
      const rowA = get.get(a) as Row;
      const rowB = get.get(b) as Row;
      const put = db.prepare('UPDATE audit SET line = ?, hash = ?, digest = ?, decisions = ? WHERE seq = ?');
      put.run(rowB.line, rowB.hash, rowB.digest, rowB.decisions, a);
      put.run(rowA.line, rowA.hash, rowA.digest, rowA.decisions, b);
    });
    const result = verify(file);
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, new RegExp(`^record ${a}: the record says it is number ${b} \\(moved or inserted\\)$`, 'm'));
    assert.match(result.stdout, new RegExp(`^record ${b}: the record says it is number ${a} \\(moved or inserted\\)$`, 'm'));
  });
});
