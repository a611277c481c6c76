// `switchboard tools --oauth` end to end: a protected resource in front of `everything`, the
// dev authorization server, and this test playing the browser (it reads the printed URL, lets
// the AS approve, and follows the redirect to the CLI's loopback listener). The second run
// reuses the stored token without any authorization. A second test has the person approve
// only after 10 s, longer than the 5 s server/discover probe.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { toNodeHandler } from '../../../src/adapters/nodeHttp.js';
import { createDevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../../../src/auth/http.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';

const root = new URL('../../../', import.meta.url).pathname;

async function toWebRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  return new Request(new URL(req.url ?? '/', base), { method: req.method ?? 'GET', headers, ...(body !== undefined && req.method !== 'GET' ? { body } : {}) });
}

async function sendWeb(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

describe('switchboard tools --oauth', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  /** A protected `everything` at `${base}/mcp` and the dev AS at `${base}/as`; `issued` collects the bearer tokens seen. */
  async function protectedEverything(): Promise<{ base: string; as: Awaited<ReturnType<typeof createDevAuthorizationServer>>; issued: Set<string> }> {
    const everything = createEverythingServer({ watchIntervalMs: 0 });
    const mcp = toNodeHandler(createStreamableHttpHandler(everything, { path: '/mcp' }));
    let base = '';
    const state: { as?: Awaited<ReturnType<typeof createDevAuthorizationServer>> } = {};
    const issued = new Set<string>();
    const server = createServer((req, res) => {
      void (async () => {
        const path = new URL(req.url ?? '/', base).pathname;
        if (path === '/.well-known/oauth-protected-resource/mcp') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [`${base}/as`] }));
        } else if (path.startsWith('/mcp')) {
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          if (token === undefined) {
            res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
            return;
          }
          issued.add(token);
          mcp(req, res);
        } else {
          await sendWeb(res, await (state.as as NonNullable<typeof state.as>).handler(await toWebRequest(req, base)));
        }
      })();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const as = await createDevAuthorizationServer({ issuer: `${base}/as`, [allowInsecureRequests]: true, scopesSupported: ['mcp:read'] });
    state.as = as;
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await everything.close();
    });
    return { base, as, issued };
  }

  /** A token directory removed after the suite. */
  async function tokenDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'sb-oauth-cli-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /**
   * Runs the CLI; this test plays the person with the browser: `thinkMs` after the URL is
   * printed it opens it (the dev AS approves at once) and follows the redirect to the loopback.
   */
  function run(argv: readonly string[], dir: string, thinkMs = 0): Promise<Run> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '', SWITCHBOARD_OAUTH_DIR: dir },
      });
      let stdout = '';
      let stderr = '';
      let browsed = false;
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const url = /^\s+(http:\/\/\S+\/authorize\S*)$/m.exec(stderr)?.[1];
        if (url !== undefined && !browsed) {
          browsed = true;
          const browse = (): void => void fetch(url, { redirect: 'manual' }).then((r) => fetch(r.headers.get('location') as string));
          if (thinkMs > 0) setTimeout(browse, thinkMs);
          else browse();
        }
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  const redirectPort = (): string => String(20000 + Math.floor(Math.random() * 20000));

  it('authorizes through the loopback listener, stores the token (0600) and reuses it', async () => {
    const dir = await tokenDir();
    const { base, as, issued } = await protectedEverything();
    const argv = ['tools', '--oauth', '--redirect-port', redirectPort(), `${base}/mcp`];

    const first = await run(argv, dir);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /Open this URL in a browser/);
    assert.match(first.stdout, /^echo\(message: string\) +Echo/m);
    assert.equal((await stat(join(dir, 'store.json'))).mode & 0o777, 0o600);
    const authorizations = as.events.filter((e) => e.endpoint === 'authorize').length;
    assert.equal(authorizations, 1);

    const second = await run(argv, dir);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /Open this URL/);
    assert.equal(as.events.filter((e) => e.endpoint === 'authorize').length, 1);
    assert.equal(issued.size, 1);
  });

  it('a person who approves after 10 s: no request timeout (probe or forced stateless era) and one loopback listener', async () => {
    const { base, as } = await protectedEverything();
    // 10 s of think time is longer than the 5 s server/discover probe; both runs wait in parallel.
    const [probing, stateless] = await Promise.all([
      run(['tools', '--oauth', '--redirect-port', redirectPort(), `${base}/mcp`], await tokenDir(), 10_000),
      run(['tools', '--oauth', '--era', 'stateless', '--redirect-port', redirectPort(), `${base}/mcp`], await tokenDir(), 10_000),
    ]);
    for (const result of [probing, stateless]) {
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /EADDRINUSE|timed out/);
      assert.equal(result.stderr.match(/Open this URL in a browser/g)?.length, 1);
      assert.match(result.stdout, /^echo\(message: string\) +Echo/m);
    }
    assert.equal(as.events.filter((e) => e.endpoint === 'authorize').length, 2);
  });
});
