// The console handler in memory (a host without servers, page files from a map, a frozen
// clock): the sign-in throttle, the host allow-list (DNS rebinding, behind the front door), path traversal on the
// page files, the security headers on every kind of response, cookie flags, and the parts
// that need no downstream server. The gateway-level attacks are in test/interop/gatewayConsole.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleHttpApi } from '../../../src/console/consoleApi.js';
import { ConsoleMetrics } from '../../../src/console/consoleMetrics.js';
import { MAX_FAILURES } from '../../../src/console/consoleSession.js';
import { ConfigError, parseConfig } from '../../../src/host/config.js';
import { createAdminDoor } from '../../../src/host/frontDoor.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../src/transport/http/server/types.js';
import { consoleOptions } from './support.js';

const ADMIN = 'a'.repeat(43);
const MCP = 'm'.repeat(43);
const HOST = '127.0.0.1:8765';
const ORIGIN = `http://${HOST}`;
const FILES: Record<string, string> = { 'index.html': '<!doctype html><title>console</title>', 'app.js': 'export {};', 'vendor/preact.mjs': 'export {};' };

async function setup(now: { t: number } = { t: Date.UTC(2026, 11, 2, 7) }) {
  const api = new ConsoleHttpApi(
    await consoleOptions(ADMIN, ORIGIN, () => now.t, {
      mcpToken: MCP,
      assets: (path) => Promise.resolve(FILES[path] === undefined ? undefined : new TextEncoder().encode(FILES[path])),
    }),
  );
  return { api, now };
}

function req(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): HttpRequestLike {
  const all: Record<string, string> = { host: HOST, ...headers };
  const [p, q] = path.split('?');
  return { method, path: p as string, query: q, header: (n) => all[n], ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}) };
}
const call = async (api: ConsoleHttpApi, r: HttpRequestLike): Promise<HttpResponseLike> => (await api.handle(r)) as HttpResponseLike;
const parsed = (r: HttpResponseLike): Record<string, unknown> => JSON.parse(String(r.body)) as Record<string, unknown>;
const signIn = (api: ConsoleHttpApi, token: string) => call(api, req('POST', '/console/api/session', { origin: ORIGIN }, { token }));

describe('console: sign-in', () => {
  it('brute force on the sign-in: after the allowed failures every attempt is refused with 429 and Retry-After, even the right token, until the window passes', async () => {
    const { api, now } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) assert.equal((await signIn(api, `guess-${i}-${'x'.repeat(40)}`)).status, 401);
    const locked = await signIn(api, ADMIN);
    assert.equal(locked.status, 429);
    assert.match(String(parsed(locked)['error']), /too many failed sign-ins/);
    assert.equal(locked.headers['retry-after'], '60');
    assert.equal(locked.headers['set-cookie'], undefined, 'no session while locked');
    now.t += 61_000;
    assert.equal((await signIn(api, ADMIN)).status, 200, 'the right token works once the window passed');
  });

  it('a wrong token of the right length, a token that is a prefix of the admin token, an empty token: 401 with a clear error', async () => {
    const { api } = await setup();
    for (const token of ['b'.repeat(43), ADMIN.slice(0, 42), '']) {
      const r = await signIn(api, token);
      assert.equal(r.status, 401);
      assert.match(String(parsed(r)['error']), /admin token/);
    }
  });

  it('the MCP bearer token as the sign-in token: 403 naming it the agent credential, no cookie', async () => {
    const { api } = await setup();
    const r = await signIn(api, MCP);
    assert.equal(r.status, 403);
    assert.match(String(parsed(r)['error']), /MCP bearer token, the agent's credential/);
    assert.equal(r.headers['set-cookie'], undefined);
  });

  it('cookie flags: HttpOnly, SameSite=Strict, Path=/console; Secure when the origin is https', async () => {
    const { api } = await setup();
    const plain = await signIn(api, ADMIN);
    assert.match(String(plain.headers['set-cookie']), /^sb_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/console; Max-Age=43200$/);
    const tls = await call(api, req('POST', '/console/api/session', { origin: `https://${HOST}` }, { token: ADMIN }));
    assert.match(String(tls.headers['set-cookie']), /; Secure$/);
  });

  it('signed out: the old cookie no longer opens the API', async () => {
    const { api } = await setup();
    const r = await signIn(api, ADMIN);
    const cookie = String(r.headers['set-cookie']).split(';')[0] as string;
    const csrf = String(parsed(r)['csrf']);
    assert.equal((await call(api, req('GET', '/console/api/overview', { cookie }))).status, 200);
    assert.equal((await call(api, req('DELETE', '/console/api/session', { cookie, origin: ORIGIN, 'x-csrf-token': csrf }))).status, 204);
    assert.equal((await call(api, req('GET', '/console/api/overview', { cookie }))).status, 401);
  });

  it('an expired session (12 h): 401', async () => {
    const { api, now } = await setup();
    const cookie = String((await signIn(api, ADMIN)).headers['set-cookie']).split(';')[0] as string;
    now.t += 12 * 60 * 60 * 1000;
    assert.equal((await call(api, req('GET', '/console/api/session', { cookie }))).status, 401);
  });
});

describe('console: requests it refuses', () => {
  // The console is served behind a front door (the gateway's, or the admin listener's on stdio): its Host/Origin policy runs first.
  it('DNS rebinding: a Host that is not on the allow-list is refused (403) by the front door for pages and the API alike', async () => {
    const { api } = await setup();
    const door = createAdminDoor({ mounts: [api] });
    for (const path of ['/console/', '/console/assets/app.js', '/console/api/session']) {
      const r = await door.handle(req('GET', path, { host: 'attacker.example:8765' }));
      assert.equal(r.status, 403, path);
      assert.match(String(parsed(r)['error']), /Host header is not allowed/);
      assert.equal((await door.handle(req('GET', path))).status === 403, false, `${path} with the gateway's own Host`);
    }
  });

  it('a rebinding page that also sends its own Origin (Origin equals the Host it uses) is still refused by the Host check', async () => {
    const { api } = await setup();
    const door = createAdminDoor({ mounts: [api] });
    const r = await door.handle(req('POST', '/console/api/session', { host: 'attacker.example:8765', origin: 'http://attacker.example:8765' }, { token: ADMIN }));
    assert.equal(r.status, 403);
    assert.equal(r.headers['set-cookie'], undefined, 'no session was opened');
  });

  it('path traversal on the page files: encoded dots, hidden files, backslashes and unknown extensions are 404', async () => {
    const { api } = await setup();
    for (const path of ['/console/assets/%2e%2e/%2e%2e/package.json', '/console/assets/..%2fadmin-token', '/console/assets/.env', '/console/assets/vendor%5c..%5cindex.html', '/console/assets/app.ts', '/console/assets/']) {
      assert.equal((await call(api, req('GET', path))).status, 404, path);
    }
  });

  it('a state change without an Origin (a form or script that hides it) is refused before routing, even with a valid session and CSRF token', async () => {
    const { api } = await setup();
    const r = await signIn(api, ADMIN);
    const cookie = String(r.headers['set-cookie']).split(';')[0] as string;
    const denied = await call(api, req('POST', '/console/api/inspector/call', { cookie, 'x-csrf-token': String(parsed(r)['csrf']) }, { tool: 'x' }));
    assert.equal(denied.status, 403);
    assert.match(String(parsed(denied)['error']), /needs an Origin header/);
  });

  it('the CSRF token of another session does not pass', async () => {
    const { api } = await setup();
    const a = await signIn(api, ADMIN);
    const b = await signIn(api, ADMIN);
    const cookie = String(a.headers['set-cookie']).split(';')[0] as string;
    const r = await call(api, req('POST', '/console/api/policy/dry-run', { cookie, origin: ORIGIN, 'x-csrf-token': String(parsed(b)['csrf']) }, {}));
    assert.equal(r.status, 403);
    assert.match(String(parsed(r)['error']), /x-csrf-token/);
  });

  it('an answer to an Inspector question: cross-origin, without the CSRF token, or with a forged question id, is refused', async () => {
    const { api } = await setup();
    const r = await signIn(api, ADMIN);
    const cookie = String(r.headers['set-cookie']).split(';')[0] as string;
    const csrf = String(parsed(r)['csrf']);
    const body = { call: 'call-aaaaaaaa', question: '00000000-0000-4000-8000-000000000000', action: 'accept', content: { username: 'x' } };
    const cross = await call(api, req('POST', '/console/api/inspector/answer', { cookie, origin: 'http://evil.example', 'x-csrf-token': csrf }, body));
    assert.equal(cross.status, 403);
    const noCsrf = await call(api, req('POST', '/console/api/inspector/answer', { cookie, origin: ORIGIN }, body));
    assert.equal(noCsrf.status, 403);
    assert.match(String(parsed(noCsrf)['error']), /x-csrf-token/);
    const forged = await call(api, req('POST', '/console/api/inspector/answer', { cookie, origin: ORIGIN, 'x-csrf-token': csrf }, body));
    assert.equal(forged.status, 404);
    assert.match(String(parsed(forged)['error']), /no such question is waiting/);
  });

  it('a body that is not a JSON object, or too large: a clear 4xx, nothing crashes', async () => {
    const { api } = await setup();
    const bad = (body: Uint8Array) => call(api, { ...req('POST', '/console/api/session', { origin: ORIGIN }), body });
    assert.equal((await bad(new TextEncoder().encode('{not json'))).status, 400);
    assert.equal((await bad(new TextEncoder().encode('[1,2]'))).status, 400);
    assert.equal((await bad(new Uint8Array(2 * 1024 * 1024))).status, 413);
  });

  it('security headers on every kind of response: page, asset, API answer, API error, 404, redirect', async () => {
    const { api } = await setup();
    const responses = await Promise.all([
      call(api, req('GET', '/console/')),
      call(api, req('GET', '/console/assets/vendor/preact.mjs')),
      call(api, req('GET', '/console/api/overview', { authorization: `Bearer ${ADMIN}` })),
      call(api, req('GET', '/console/api/overview')),
      call(api, req('GET', '/console/nothing-here')),
      call(api, req('GET', '/console')),
    ]);
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 401, 404, 308]);
    for (const r of responses) {
      assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(String(r.headers['content-security-policy']), /script-src 'self';/);
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
    }
  });
});

describe('console: metrics ring', () => {
  it('buckets per 10 s over 5 minutes, oldest first; an old bucket is reused, not added to', () => {
    const now = { t: 1_000_000_000_000 };
    const m = new ConsoleMetrics({ now: () => now.t });
    m.record('a', 10, undefined);
    m.record('a', 30, { method: 'tools/call', name: 'x', error: 'boom' });
    let series = m.series('a');
    assert.equal(series.length, 30);
    assert.deepEqual({ ...series.at(-1), start: 0 }, { start: 0, calls: 2, errors: 1, avgMs: 20, maxMs: 30 });
    assert.equal(m.recentErrors('a')[0]?.error, 'boom');
    now.t += 300_000; // the same slot five minutes later
    m.record('a', 5, undefined);
    series = m.series('a');
    assert.equal(series.reduce((n, b) => n + b.calls, 0), 1, 'the stale bucket was reset');
    assert.equal(m.series('unknown').every((b) => b.calls === 0 && b.avgMs === null), true);
  });
});

describe('console: switchboard.console', () => {
  const parse = (value: unknown) => parseConfig(JSON.stringify({ mcpServers: {}, switchboard: { console: value } }), { file: '/tmp/switchboard.json', env: {} }).console;
  it('default on; true, false and { enabled } are read', () => {
    assert.equal(parseConfig('{"mcpServers":{}}', { file: '/tmp/switchboard.json', env: {} }).console, true);
    assert.deepEqual([parse(true), parse(false), parse({ enabled: false }), parse({})], [true, false, false, true]);
  });
  it('a string, an unknown key or a non-boolean enabled: ConfigError naming the path', () => {
    assert.throws(() => parse('yes'), (e: unknown) => e instanceof ConfigError && /\$\.switchboard\.console/.test(e.message));
    assert.throws(() => parse({ on: true }), (e: unknown) => e instanceof ConfigError && /\$\.switchboard\.console/.test(e.message));
    assert.throws(() => parse({ enabled: 'no' }), (e: unknown) => e instanceof ConfigError && /\$\.switchboard\.console\.enabled/.test(e.message));
  });
});
