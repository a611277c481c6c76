// E2E through the real `switchboard gateway` process and real downstream servers (our
// everything server, and the weather fixture whose definition changes between launches): the
// web console's API at HTTP level. First the attacks it stops (named after them), then each
// endpoint, a quarantined tool approved from the console and then called, consent answered
// from the console while the MCP call waits, and a tampered audit record flagged.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { signIn, type ConsoleClient } from './fixtures/consoleClient.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';
import { descendants } from '../e2e/processTree.js';
import { MAIN, everythingEntry, serversReady, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const rugPull = fileURLToPath(new URL('../fixtures/attacks/rugPullServer.ts', import.meta.url));
const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');
const weather = (variant: string): Record<string, unknown> => ({ command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT, env: { WEATHER_VARIANT: variant } });
const SWITCHBOARD = {
  consent: { providers: ['queue'], ask: ['everything/echo'], timeoutMs: 60_000 },
  policy: {
    trifecta: 'off',
    valueTaint: 'off',
    rules: [{ id: 'no-secret-echo', when: "tool.name == 'echo' && has(args.message) && args.message.contains('secret')", outcome: 'deny', reason: 'no secrets through echo' }],
  },
};

let config: GatewayConfig;
let gateway: RunningGateway;
let admin: string;
let origin: string;
let console_: ConsoleClient;

before(async () => {
  config = await writeConfig({ everything: everythingEntry(), weather: weather('benign') }, SWITCHBOARD);
  gateway = await startGateway(config);
  await serversReady(gateway);
  admin = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
  origin = gateway.url.origin;
  console_ = await signIn(origin, admin);
});

after(async () => {
  await gateway.stop();
  await config.remove();
});

const raw = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Response> =>
  fetch(new URL(path, origin), {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
/** The refusal's text: the console's `{ error }`, or the front door's JSON-RPC `{ error: { message } }`. */
const errorOf = async (r: Response): Promise<string> => {
  const error = ((await r.json()) as { error: string | { message: string } }).error;
  return typeof error === 'string' ? error : error.message;
};
const connect = async (): Promise<McpClient> => {
  const client = new McpClient({ name: 'agent', version: '1' }, { era: 'stateful' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
  return client;
};

describe('e2e: console attacks', () => {
  it('no credential: 401 on every API path, page files still load (they hold no data)', async () => {
    for (const path of ['overview', 'tools', 'review', 'consent', 'connections', 'audit', 'audit/verify', 'audit/export', 'policy', 'inspector/everything', 'events', 'session']) {
      const r = await raw(`/console/api/${path}`);
      assert.equal(r.status, 401, path);
      assert.match(await errorOf(r), /sign in|not signed in/, path);
    }
    assert.equal((await raw('/console/assets/vendor/preact.mjs')).status, 200);
  });

  it('the MCP bearer token used on the console: as Authorization 403 on reads and writes, as the sign-in token 403 and no cookie', async () => {
    for (const path of ['overview', 'consent', 'audit']) {
      const r = await raw(`/console/api/${path}`, { headers: { authorization: `Bearer ${gateway.token}` } });
      assert.equal(r.status, 403, path);
      assert.match(await errorOf(r), /MCP bearer token is the agent's credential/);
    }
    const write = await raw('/console/api/inspector/call', { method: 'POST', headers: { authorization: `Bearer ${gateway.token}`, origin }, body: { tool: 'echo', arguments: { message: 'x' } } });
    assert.equal(write.status, 403);
    const signInWithMcp = await raw('/console/api/session', { method: 'POST', headers: { origin }, body: { token: gateway.token } });
    assert.equal(signInWithMcp.status, 403);
    assert.equal(signInWithMcp.headers.get('set-cookie'), null);
    assert.match(await errorOf(signInWithMcp), /MCP bearer token, the agent's credential/);
  });

  it('the console session cookie used on the MCP endpoint: 401 (one credential never opens the other side)', async () => {
    const r = await fetch(gateway.url, { method: 'POST', headers: { cookie: console_.cookie, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    assert.equal(r.status, 401);
  });

  it('cross-origin POST to any console path: 403 before routing, even with a valid session and CSRF token', async () => {
    const paths = ['/console/api/session', '/console/api/consent/any-id/approve', '/console/api/review/approve', '/console/api/inspector/call', '/console/api/policy/dry-run', '/console/api/no-such-route', '/console/assets/app.js', '/console/'];
    for (const path of paths) {
      // A foreign origin: refused by the front door's allow-list, the one Host/Origin policy of every route.
      const r = await console_.fetch(path, { method: 'POST', body: { token: admin }, headers: { origin: 'https://evil.example' } });
      assert.equal(r.status, 403, path);
      assert.match(await errorOf(r), /the Origin header is not allowed/, path);
      // Another page on loopback (on the allow-list, another port): refused by the console's same-origin rule.
      const sibling = await console_.fetch(path, { method: 'POST', body: { token: admin }, headers: { origin: 'http://127.0.0.1:1' } });
      assert.equal(sibling.status, 403, path);
      assert.match(await errorOf(sibling), /origin http:\/\/127\.0\.0\.1:1 is not this gateway's/, path);
    }
    const siteHeader = await console_.fetch('/console/api/inspector/call', { method: 'POST', body: { tool: 'echo' }, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(siteHeader.status, 403, 'Sec-Fetch-Site: cross-site with a forged same Origin');
    const del = await console_.fetch('/console/api/session', { method: 'DELETE', headers: { origin: 'http://localhost.evil.example' } });
    assert.equal(del.status, 403);
    assert.equal((await console_.fetch('/console/api/session')).status, 200, 'the session survived the cross-origin sign-out');
  });

  it('missing or wrong CSRF token: 403 on every state change, nothing happens', async () => {
    const before_ = (await console_.json<{ total: number }>('/console/api/audit?limit=1')).total;
    for (const csrf of [undefined, 'wrong', console_.csrf.slice(1)]) {
      const headers: Record<string, string> = { origin, cookie: console_.cookie, 'content-type': 'application/json' };
      if (csrf !== undefined) headers['x-csrf-token'] = csrf;
      const r = await fetch(new URL('/console/api/inspector/call', origin), { method: 'POST', headers, body: JSON.stringify({ tool: 'echo', arguments: { message: 'csrf' } }) });
      assert.equal(r.status, 403);
      assert.match(await errorOf(r), /x-csrf-token/);
    }
    assert.equal((await console_.json<{ total: number }>('/console/api/audit?limit=1')).total, before_, 'no call was made (no audit record)');
  });

  it('framing and sniffing: every page, asset and API response says frame-ancestors none, X-Frame-Options DENY, nosniff', async () => {
    const responses = await Promise.all(['/console', '/console/', '/console/assets/vendor/preact.mjs', '/console/assets/vendor/hooks.mjs', '/console/api/overview', '/console/api/nope'].map((p) => console_.fetch(p)));
    for (const r of responses) {
      assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'; script-src 'self'; style-src 'self';.*frame-ancestors 'none'/, r.url);
      assert.equal(r.headers.get('x-frame-options'), 'DENY', r.url);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', r.url);
    }
    const api = responses[4] as Response;
    assert.equal(api.headers.get('cache-control'), 'no-store');
    assert.equal((responses[2] as Response).headers.get('content-type'), 'text/javascript; charset=utf-8');
  });

  it('session cookie flags over http: HttpOnly, SameSite=Strict, Path=/console, no Secure', async () => {
    const r = await raw('/console/api/session', { method: 'POST', headers: { origin }, body: { token: admin } });
    assert.match(r.headers.get('set-cookie') ?? '', /^sb_console=[\w-]+; HttpOnly; SameSite=Strict; Path=\/console; Max-Age=43200$/);
  });
});

describe('e2e: console API', () => {
  it('overview: both servers with health, era, transport, counts; calls counted per server in the current bucket', async () => {
    await console_.json('/console/api/inspector/call', { method: 'POST', body: { tool: 'test_simple_text', arguments: {} } });
    const o = await console_.json<{ gateway: Record<string, unknown>; servers: Record<string, unknown>[]; metrics: { buckets: number; series: Record<string, { calls: number }[]> } }>('/console/api/overview');
    assert.equal(o.gateway['transport'], 'http');
    assert.equal(o.gateway['url'], gateway.url.href);
    assert.deepEqual(o.servers.map((s) => [s['id'], s['state'], s['transport']]), [['everything', 'ready', 'stdio'], ['weather', 'ready', 'stdio']]);
    const everything = o.servers[0] as { counts: { tools: number; prompts: number }; protocolVersion: string; era: string };
    assert.ok(everything.counts.tools > 10 && everything.counts.prompts > 0);
    assert.match(everything.protocolVersion, /^\d{4}-\d\d-\d\d$/);
    assert.equal(o.metrics.buckets, 30);
    assert.equal(o.metrics.series['everything']?.length, 30);
    assert.ok((o.metrics.series['everything'] ?? []).reduce((n, b) => n + b.calls, 0) >= 1);
  });

  it('connections: a gateway with no per-user server lists none, and the look creates no connections store or key', async () => {
    const c = await console_.json<{ enabled: boolean; opened: boolean; connections: unknown[] }>('/console/api/connections');
    assert.deepEqual(c, { enabled: true, opened: false, connections: [] });
    assert.equal(existsSync(join(config.dir, '.switchboard', 'connections.key')), false);
    assert.equal(existsSync(join(config.dir, '.switchboard', 'connections.db')), false);
  });

  it('tools: every exposed tool with server, trust level (first-use pin), scanner verdict, labels from annotations', async () => {
    const t = await console_.json<{ tools: { name: string; server: string; trust: string; verdict: string; labels: { label: string; origin: string }[] }[] }>('/console/api/tools');
    const echo = t.tools.find((x) => x.name === 'echo');
    assert.equal(echo?.server, 'everything');
    assert.equal(echo?.trust, 'first-use');
    assert.equal(echo?.verdict, 'pass');
    assert.deepEqual(new Set(t.tools.map((x) => x.server)), new Set(['everything', 'weather']));
  });

  it('inspector: lists a server through the gateway, calls a tool, reads a resource, gets a prompt; audited as console:admin', async () => {
    const listed = await console_.json<{ tools: { name: string }[]; resources: { uri: string }[]; prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[]; templates: unknown[] }>('/console/api/inspector/everything');
    assert.ok(listed.tools.some((t) => t.name === 'test_simple_text'));
    const called = await console_.json<{ result: unknown }>('/console/api/inspector/call', { method: 'POST', body: { tool: 'test_simple_text', arguments: {} } });
    assert.ok(text(called.result).length > 0);
    const resource = listed.resources[0] as { uri: string };
    const read = await console_.json<{ result: { contents: { uri: string }[] } }>('/console/api/inspector/read', { method: 'POST', body: { uri: resource.uri } });
    assert.equal(read.result.contents[0]?.uri, resource.uri);
    const prompt = listed.prompts.find((p) => (p.arguments ?? []).every((a) => a.required !== true)) as { name: string };
    const got = await console_.json<{ result: { messages: unknown[] } }>('/console/api/inspector/prompt', { method: 'POST', body: { name: prompt.name, arguments: {} } });
    assert.ok(got.result.messages.length > 0);
    const unknown = await console_.json<{ error: { message: string } }>('/console/api/inspector/call', { method: 'POST', body: { tool: 'no_such_tool', arguments: {} } });
    assert.match(unknown.error.message, /Unknown tool: no_such_tool/);
    const audit = await console_.json<{ records: { principal: string; name: string; method: string }[] }>('/console/api/audit?principal=console:admin&limit=50');
    assert.ok(audit.records.some((r) => r.method === 'tools/call' && r.name === 'test_simple_text'));
    assert.ok(audit.records.some((r) => r.method === 'resources/read' && r.name === resource.uri));
    assert.equal((await console_.fetch('/console/api/inspector/nope')).status, 404);
  });

  it('inspector call denied by the policy: the denial and its reason come back, and the audit log says denied', async () => {
    const r = await console_.json<{ error: { code: string; message: string } }>('/console/api/inspector/call', { method: 'POST', body: { tool: 'echo', arguments: { message: 'the secret plan' } } });
    assert.equal(r.error.code, 'ERR_MCP_DENIED');
    assert.match(r.error.message, /no secrets through echo/);
    const denied = await console_.json<{ records: { outcome: string; decisions: { interceptor: string }[] }[] }>('/console/api/audit?outcome=denied&decision=policy&tool=echo');
    assert.ok(denied.records.length >= 1);
  });

  it('policy: the rules as loaded, and a dry run of a call: deny with the rule id and reason, allow otherwise; nothing is called', async () => {
    const p = await console_.json<{ rules: { id: string }[]; builtins: Record<string, string> }>('/console/api/policy');
    assert.deepEqual(p.rules.map((r) => r.id), ['no-secret-echo']);
    assert.equal(p.builtins['trifecta'], 'off');
    const total = (await console_.json<{ total: number }>('/console/api/audit?limit=1')).total;
    const deny = await console_.json<{ decision: string; rules: string[]; reasons: string[] }>('/console/api/policy/dry-run', { method: 'POST', body: { server: 'everything', tool: 'echo', arguments: { message: 'a secret' }, principal: 'alice' } });
    assert.deepEqual([deny.decision, deny.rules, deny.reasons], ['deny', ['no-secret-echo'], ['no secrets through echo']]);
    const allow = await console_.json<{ decision: string }>('/console/api/policy/dry-run', { method: 'POST', body: { server: 'everything', tool: 'echo', arguments: { message: 'hello' } } });
    assert.equal(allow.decision, 'allow');
    assert.equal((await console_.json<{ total: number }>('/console/api/audit?limit=1')).total, total, 'a dry run records nothing');
    assert.equal((await console_.fetch('/console/api/policy/dry-run', { method: 'POST', body: { server: 'nope', tool: 'x' } })).status, 404);
    assert.equal((await console_.fetch('/console/api/policy/dry-run', { method: 'POST', body: { server: 'everything' } })).status, 400);
  });

  it('consent: answered from the console while the MCP call waits (pushed as an event, no polling); a denial reaches the client with its reason', async () => {
    const client = await connect();
    const events = await console_.events();
    try {
      const first = client.callTool('echo', { message: 'lunch at noon' });
      const asked = (await events.next('consent-request')) as { id: string; tool: string; arguments: unknown; reasons: string[] };
      assert.equal(asked.tool, 'echo');
      assert.deepEqual(asked.arguments, { message: 'lunch at noon' });
      const listed = await console_.json<{ requests: { id: string }[]; queue: boolean }>('/console/api/consent');
      assert.equal(listed.queue, true);
      assert.deepEqual(listed.requests.map((r) => r.id), [asked.id]);
      const answered = events.next('consent-answered', (d) => (d as { id: string }).id === asked.id);
      await console_.json(`/console/api/consent/${asked.id}/approve`, { method: 'POST', body: { scope: { match: 'tool', duration: 'session' } } });
      assert.equal(((await answered) as { approved: boolean }).approved, true);
      assert.equal(text(await first), 'lunch at noon');
      assert.equal(text(await client.callTool('echo', { message: 'other words, same session' })), 'other words, same session', 'the widened approval covers the session');
      const grants = await console_.json<{ grants: { id: string }[] }>('/console/api/consent');
      assert.equal(grants.grants.length, 1);
      await console_.json(`/console/api/consent/grants/${encodeURIComponent((grants.grants[0] as { id: string }).id)}`, { method: 'DELETE' });

      const second = client.callTool('echo', { message: 'send it to eve' });
      const again = (await events.next('consent-request')) as { id: string };
      const badScope = await console_.fetch(`/console/api/consent/${again.id}/approve`, { method: 'POST', body: { scope: { match: 'tool', duration: 'until' } } });
      assert.equal(badScope.status, 400, 'until without expiresAt');
      await console_.json(`/console/api/consent/${again.id}/deny`, { method: 'POST', body: { reason: 'not to eve' } });
      const refused = await second;
      assert.equal(refused.isError, true);
      assert.match(text(refused), /console:admin did not approve echo on server everything: not to eve/);
      assert.equal((await console_.fetch(`/console/api/consent/${again.id}/approve`, { method: 'POST', body: {} })).status, 404, 'already answered');
    } finally {
      events.close();
      await client.close();
    }
  });

  it('review: a changed definition is quarantined with old and new text; the call is refused until it is approved in the console, then it succeeds', async () => {
    const events = await console_.events();
    const client = await connect();
    try {
      const weatherTool = (await console_.json<{ tools: { name: string; server: string; ownName: string }[] }>('/console/api/tools')).tools.find((t) => t.server === 'weather' && t.ownName === 'get_weather') as { name: string };
      assert.equal(text(await client.callTool(weatherTool.name, { city: 'Oslo' })), 'Sunny, 21°C');
      // The server's update: same launch, an honest but changed description (only the pins see it).
      const file = JSON.parse(await readFile(config.file, 'utf8')) as { mcpServers: Record<string, unknown> };
      file.mcpServers['weather'] = weather('celsius');
      await writeFile(config.file, JSON.stringify(file, null, 2));
      // A launch's env value changed: the reloaded config waits for a person (#31), who approves it on the console.
      type Held = { config: { digest: string } | null };
      let held = await console_.json<Held>('/console/api/review');
      while (held.config === null) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // the gate's state, polled: the reload is the file watcher's
        held = await console_.json<Held>('/console/api/review');
      }
      assert.equal((await console_.fetch('/console/api/review/config/approve', { method: 'POST', body: { digest: held.config.digest } })).status, 200);
      type Review = { items: { identity: string; item: string; server: string; status: string; before: { description: string } | null; after: { description: string } }[] };
      let review = await console_.json<Review>('/console/api/review');
      while (review.items.length === 0) {
        await events.next('changed');
        review = await console_.json<Review>('/console/api/review');
      }
      const item = review.items[0] as Review['items'][number];
      assert.deepEqual([item.server, item.item, item.status], ['weather', 'tool:get_weather', 'changed']);
      assert.equal(item.before?.description, 'Gets the weather for a city.');
      assert.equal(item.after.description, 'Gets the weather for a city, in degrees Celsius.');
      const refused = await client.callTool(weatherTool.name, { city: 'Oslo' });
      assert.equal(refused.isError, true);
      assert.match(text(refused), /Denied by trust\.pins/);
      const withheld = await console_.json<{ withheld: { exposedName: string }[] }>('/console/api/tools');
      assert.ok(withheld.withheld.some((w) => w.exposedName === weatherTool.name));
      const counted = (await console_.json<{ servers: { id: string; counts: Record<string, number> }[] }>('/console/api/overview')).servers.find((s) => s.id === 'weather');
      assert.deepEqual([counted?.counts['withheld'], counted?.counts['scannerBlocked']], [1, 0], 'the overview counts the quarantined item (and no scanner block)');

      assert.equal((await console_.fetch('/console/api/review/approve', { method: 'POST', body: { identity: item.identity, item: 'tool:nope' } })).status, 400);
      const approved = await console_.json<{ approved: string[] }>('/console/api/review/approve', { method: 'POST', body: { identity: item.identity, item: item.item } });
      assert.deepEqual(approved.approved, ['tool:get_weather']);
      assert.equal(text(await client.callTool(weatherTool.name, { city: 'Oslo' })), 'Sunny, 21°C', 'the approved definition is served and the call succeeds');
      const tools = await console_.json<{ tools: { name: string; trust: string }[] }>('/console/api/tools');
      assert.equal(tools.tools.find((t) => t.name === weatherTool.name)?.trust, 'approved');
      assert.deepEqual((await console_.json<Review>('/console/api/review')).items, []);
      assert.equal((await console_.fetch('/console/api/review/approve', { method: 'POST', body: { identity: item.identity } })).status, 409, 'nothing pending any more');
    } finally {
      events.close();
      await client.close();
    }
  });

  it('audit: filters, paging newest first, NDJSON export; verify passes, then flags the record someone edited in the database', async () => {
    const page = await console_.json<{ records: { seq: number }[]; next: number | null; total: number }>('/console/api/audit?limit=2');
    assert.equal(page.records.length, 2);
    assert.ok((page.records[0] as { seq: number }).seq > (page.records[1] as { seq: number }).seq);
    assert.equal(page.next, (page.records[1] as { seq: number }).seq);
    const older = await console_.json<{ records: { seq: number }[] }>(`/console/api/audit?limit=2&before=${String(page.next)}`);
    assert.ok(older.records.every((r) => r.seq < (page.next as number)));
    const byServer = await console_.json<{ records: { server: string }[] }>('/console/api/audit?server=weather&limit=500');
    assert.ok(byServer.records.length > 0 && byServer.records.every((r) => r.server === 'weather'));
    const future = await console_.json<{ records: unknown[] }>('/console/api/audit?from=2999-01-01T00:00:00Z');
    assert.deepEqual(future.records, []);
    assert.equal((await console_.fetch('/console/api/audit?from=yesterday')).status, 400);
    assert.equal((await console_.fetch('/console/api/audit?limit=0')).status, 400);

    const exported = await console_.fetch('/console/api/audit/export?principal=console:admin');
    assert.equal(exported.status, 200);
    assert.match(exported.headers.get('content-disposition') ?? '', /attachment; filename="switchboard-audit.ndjson"/);
    const lines = (await exported.text()).trim().split('\n').map((l) => JSON.parse(l) as { seq: number; principal: string });
    assert.ok(lines.length > 0 && lines.every((r) => r.principal === 'console:admin'));
    assert.ok(lines.every((r, i) => i === 0 || r.seq > (lines[i - 1] as { seq: number }).seq), 'oldest first');

    const ok = await console_.json<{ ok: boolean; firstBroken: number | null }>('/console/api/audit/verify');
    assert.deepEqual([ok.ok, ok.firstBroken], [true, null]);
    const db = new Database(join(config.dir, '.switchboard', 'audit.db'));
    try {
      db.prepare("UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"error\"') WHERE seq = 2").run();
    } finally {
      db.close();
    }
    const broken = await console_.json<{ ok: boolean; firstBroken: number; problems: { seq: number; problem: string }[] }>('/console/api/audit/verify');
    assert.equal(broken.ok, false);
    assert.equal(broken.firstBroken, 2);
    assert.match(broken.problems[0]?.problem ?? '', /does not match its hash/);
  });

  it('switchboard console --print: the URL of the running gateway and where the admin token is', async () => {
    const out = await run(process.execPath, [MAIN, 'console', '--print', '--page', 'consent', '--config', config.file], { cwd: config.dir });
    assert.equal(out.stdout.split('\n')[0], `${origin}/console/#/consent`);
    assert.match(out.stdout, /admin token in .*admin-token/);
    await assert.rejects(run(process.execPath, [MAIN, 'console', '--print', '--page', 'settings', '--config', config.file], { cwd: config.dir }), /--page is one of/);
  });
});

describe('e2e: console of a gateway on stdio', () => {
  it('served on the loopback admin listener (its URL in console-url): the same sign-in and Origin rules, transport stdio', async () => {
    const stdio = await writeConfig({ everything: everythingEntry() });
    const child = spawn(process.execPath, [MAIN, 'gateway', '--stdio', '--config', stdio.file, '--yes', '--log-level', 'error'], { cwd: stdio.dir, stdio: ['pipe', 'ignore', 'pipe'] });
    try {
      let err = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const m = /Console: (http:\/\/\S+)/.exec(err);
          if (m !== null) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`the gateway exited with ${String(code)}: ${err}`)));
      });
      assert.equal((await readFile(join(stdio.dir, '.switchboard', 'console-url'), 'utf8')).trim(), url);
      const base = new URL(url).origin;
      const token = (await readFile(join(stdio.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
      const session = await signIn(base, token);
      const o = await session.json<{ gateway: { transport: string; url: string | null }; servers: { id: string }[] }>('/console/api/overview');
      assert.deepEqual([o.gateway.transport, o.gateway.url, o.servers.map((s) => s.id)], ['stdio', null, ['everything']]);
      const cross = await session.fetch('/console/api/inspector/call', { method: 'POST', body: { tool: 'echo' }, headers: { origin: 'https://evil.example' } });
      assert.equal(cross.status, 403);
      assert.equal((await fetch(new URL('/console/api/overview', base))).status, 401);
    } finally {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      await exited;
      await stdio.remove();
    }
  });
});

/** `switchboard gateway` without --yes (and no terminal: no launch is approved), run in `cwd`; its URL and stderr once it listens. */
function gatewayWithoutYes(cfg: GatewayConfig, cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcessByStdio<null, null, Readable>; listening: Promise<{ url: URL; err: string }> } {
  const child = spawn(process.execPath, [MAIN, 'gateway', '--config', cfg.file, '--port', '0', '--log-level', 'error'], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const listening = new Promise<{ url: URL; err: string }>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /Switchboard gateway: (http:\/\/\S+)/.exec(err);
      if (m !== null) resolve({ url: new URL(m[1] as string), err });
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${String(code)}: ${err}`)));
  });
  return { child, listening };
}

describe('e2e: launches waiting for consent', () => {
  it('a stdio server whose launch nobody approved is listed with its exact command; approving it in the console starts it, a stale digest is refused', async () => {
    const cfg = await writeConfig({ everything: everythingEntry() });
    // No --yes and no terminal: the launch is not approved, the server does not start.
    const { child, listening } = gatewayWithoutYes(cfg, cfg.dir, process.env);
    try {
      const { url, err } = await listening;
      assert.match(err, /The launch of server "everything" has not been approved/);
      const token = (await readFile(join(cfg.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
      const session = await signIn(url.origin, token);
      assert.deepEqual((await session.json<{ servers: unknown[] }>('/console/api/overview')).servers, []);
      const review = await session.json<{ launches: { server: string; command: string; args: string[]; env: string[]; digest: string }[] }>('/console/api/review');
      const launch = review.launches[0] as { server: string; command: string; args: string[]; digest: string };
      assert.deepEqual([launch.server, launch.command, launch.args.slice(1)], ['everything', process.execPath, ['everything', '--stdio', '--log-level', 'warn']]);
      const stale = await session.fetch('/console/api/review/launches/approve', { method: 'POST', body: { server: 'everything', digest: `sha256:${'0'.repeat(64)}` } });
      assert.equal(stale.status, 409, 'a digest other than the one shown is refused');
      const approved = await session.json<{ started: boolean }>('/console/api/review/launches/approve', { method: 'POST', body: { server: 'everything', digest: launch.digest } });
      assert.equal(approved.started, true);
      assert.deepEqual((await session.json<{ servers: { id: string }[] }>('/console/api/overview')).servers.map((s) => s.id), ['everything']);
      assert.deepEqual((await session.json<{ launches: unknown[] }>('/console/api/review')).launches, []);
    } finally {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      await cfg.remove();
    }
  });
  it('wrong working folder: a launch without cwd shows the folder it will really start in (the gateway\'s, not the config\'s), on the console and in the refusal; approved, it runs there', async () => {
    const cfg = await writeConfig({ everything: everythingEntry() });
    // The gateway runs elsewhere than its config's folder, as under a client that starts it from / or its own folder.
    const elsewhere = await mkdtemp(join(tmpdir(), 'sb-gateway-cwd-'));
    const { child, listening } = gatewayWithoutYes(cfg, elsewhere, { ...process.env, HOME: cfg.dir, XDG_CONFIG_HOME: cfg.dir });
    try {
      const { url, err } = await listening;
      assert.ok(err.includes(`working directory: ${JSON.stringify(elsewhere)} (not set in the config: the gateway's own)`), err);
      const token = (await readFile(join(cfg.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
      const session = await signIn(url.origin, token);
      const review = await session.json<{ launches: { server: string; cwd: string | null; startsIn: string; digest: string }[] }>('/console/api/review');
      const launch = review.launches[0] as { server: string; cwd: string | null; startsIn: string; digest: string };
      assert.deepEqual([launch.server, launch.cwd, launch.startsIn], ['everything', null, elsewhere]);
      assert.notEqual(launch.startsIn, cfg.dir);
      const approved = await session.json<{ started: boolean }>('/console/api/review/launches/approve', { method: 'POST', body: { server: 'everything', digest: launch.digest } });
      assert.equal(approved.started, true);
      // What the console showed is where the server process runs.
      const folders = descendants(child.pid as number).map((pid) => readlinkSync(`/proc/${pid}/cwd`));
      assert.ok(folders.length > 0);
      assert.deepEqual([...new Set(folders)], [elsewhere]);
    } finally {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      await cfg.remove();
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
