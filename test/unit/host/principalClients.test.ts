// The per-(server, principal) client pool: each principal's requests go over its own client
// with its own credential, never another's; the server's static credential headers stay off
// them; capped and idle-evicted; a sign-in becomes -32042; shared servers are untouched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpClient } from '../../../src/client/mcpClient.js';
import { MemoryConnectionStore, type Connection, type CredentialAnswer, type DownstreamCredentials } from '../../../src/host/connections.js';
import { credentialOf } from '../../../src/host/credentialUse.js';
import type { Downstream } from '../../../src/host/downstream.js';
import { DeniedError, interceptContext } from '../../../src/host/interceptors.js';
import { DownstreamAuthority, refuseOtherModes, signInInputRequired, signInUnsupported, URL_ELICITATION_REQUIRED, UrlElicitationRequiredError, type PrincipalAuthHooks } from '../../../src/host/principalClients.js';
import { ErrorCode, JsonRpcError } from '../../../src/jsonrpc/errors.js';
import type { DownstreamSpec } from '../../../src/host/spec.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

const T = { timeout: 10_000 };
const spec = (auth: 'shared' | 'per-user'): DownstreamSpec => ({
  id: 'gh',
  launch: { kind: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer catalog-token', 'X-Team': 'blue' } },
  options: { tools: { allow: undefined, deny: [] }, timeoutMs: 5_000, maxConcurrency: 4, era: 'auto', oauth: undefined, auth: { mode: auth } },
});
const connection = (principal: string): Connection => ({
  principal,
  server: 'https://mcp.example.com/mcp',
  serverId: 'gh',
  mode: 'per-user',
  tokens: { accessToken: `token-of-${principal}`, tokenType: 'Bearer', requestedScopes: [], issuer: 'https://as.example', resource: 'https://mcp.example.com/mcp' },
  createdAt: 0,
  updatedAt: 0,
});
const ctx = (method: 'tools/call' | 'prompts/get' = 'tools/call', params: Record<string, unknown> = {}) => interceptContext({ method, principal: undefined, session: undefined, server: { id: 'gh' }, params, signal: new AbortController().signal });

function world(options: { maxClients?: number; idleMs?: number; answer?: (principal: string, tool?: string) => CredentialAnswer; renew?: DownstreamCredentials['renew']; credentialId?: (tool: string | undefined) => string } = {}) {
  let now = 0;
  const opened: { spec: DownstreamSpec; hooks: PrincipalAuthHooks; closed: boolean }[] = [];
  const credentials: DownstreamCredentials = {
    mode: 'per-user',
    credentialFor: (p, tool) => Promise.resolve(options.answer?.(p.id, tool) ?? { kind: 'token', connection: connection(p.id) }),
    renew: options.renew ?? (() => Promise.resolve(undefined)),
    ...(options.credentialId !== undefined ? { credentialId: options.credentialId } : {}),
  };
  const authority = new DownstreamAuthority({
    credentials: () => credentials,
    transport: async (s, hooks) => {
      const record = { spec: s, hooks, closed: false };
      opened.push(record);
      const server = new McpServer({ name: 'gh', version: '1' });
      server.tool('echo', { description: 'echo', inputSchema: { type: 'object' } }, () => 'ok');
      const [client, side] = createInMemoryPair();
      await server.connect(side);
      return { start: (sink) => client.start(sink), send: (m, o) => client.send(m, o), close: () => ((record.closed = true), client.close()) };
    },
    clientInfo: { name: 'test', version: '1' },
    ...(options.maxClients !== undefined ? { maxClients: options.maxClients } : {}),
    ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
    now: () => now,
  });
  const base = { spec: spec('per-user') } as Downstream;
  const used: McpClient[] = [];
  const run = (principal: string | undefined, server: Downstream = base, request: { method?: 'tools/call' | 'prompts/get'; params?: Record<string, unknown> } = {}) => {
    const c = ctx(request.method, request.params);
    const task = authority.wrap(server, principal === undefined ? undefined : { id: principal }, c, (client) => {
      used.push(client);
      return client.callTool('echo', {});
    });
    return { ctx: c, done: task({} as McpClient, { signal: new AbortController().signal, timeoutMs: 0 }) };
  };
  return { authority, opened, run, used, advance: (ms: number) => (now += ms) };
}

describe('host/principalClients', () => {
  it('a tool with its own credential (toolScopes) gets a client of its own carrying only that credential; other tools and non-calls the default', T, async () => {
    const asked: (string | undefined)[] = [];
    const w = world({
      credentialId: (tool) => (tool === 'write' ? 'write-set' : ''),
      answer: (p, tool) => {
        asked.push(tool);
        const c = connection(p);
        return { kind: 'token', connection: tool === 'write' ? { ...c, server: `${c.server}#scopes=w`, tokens: { ...c.tokens, accessToken: `write-token-of-${p}` } } : c };
      },
    });
    await w.run('alice', undefined, { params: { name: 'write' } }).done;
    await w.run('alice', undefined, { params: { name: 'read' } }).done;
    await w.run('alice', undefined, { method: 'prompts/get', params: { name: 'write' } }).done;
    await w.run('alice', undefined, { params: { name: 'write' } }).done;
    assert.deepEqual(asked, ['write', 'read', undefined, 'write'], 'the server\'s tool name of a call reaches the credential choice; a prompt named like the tool does not');
    assert.equal(w.opened.length, 2, 'one client per (principal, credential)');
    assert.equal(w.used[0], w.used[3]);
    assert.equal(w.used[1], w.used[2]);
    assert.notEqual(w.used[0], w.used[1]);
    assert.deepEqual(await w.opened[0]?.hooks.authorizationHeaders('POST', ''), { authorization: 'Bearer write-token-of-alice' });
    assert.deepEqual(await w.opened[1]?.hooks.authorizationHeaders('POST', ''), { authorization: 'Bearer token-of-alice' }, 'read-call-never-carries-write-token');
    assert.equal(w.authority.clientCount('gh'), 2);
    await w.authority.close();
  });

  it('each principal has its own client whose requests carry its own token and not the server\'s static credential', T, async () => {
    const w = world();
    await w.run('alice').done;
    await w.run('bob').done;
    await w.run('alice').done;
    assert.equal(w.opened.length, 2);
    assert.equal(w.used[0], w.used[2], 'alice\'s client is reused');
    assert.notEqual(w.used[0], w.used[1]);
    assert.deepEqual(await w.opened[0]?.hooks.authorizationHeaders('POST', ''), { authorization: 'Bearer token-of-alice' });
    assert.deepEqual(await w.opened[1]?.hooks.authorizationHeaders('POST', ''), { authorization: 'Bearer token-of-bob' });
    for (const o of w.opened) assert.deepEqual(o.spec.launch.kind === 'stdio' ? undefined : o.spec.launch.headers, { 'X-Team': 'blue' }, 'catalog-credential-on-a-principal-request: stripped');
    await w.authority.close();
  });

  it('credential-of-another-principal offered by a store is refused; nothing is opened or sent', T, async () => {
    const w = world({ answer: () => ({ kind: 'token', connection: connection('mallory') }) });
    await assert.rejects(w.run('alice').done, /another principal/);
    assert.equal(w.opened.length, 0);
    assert.equal(w.used.length, 0);
  });

  it('a principal without a connection gets -32042 carrying the URL elicitation; nothing is opened', T, async () => {
    const w = world({ answer: () => ({ kind: 'sign-in', url: 'https://gw.example.com/oauth/start/x', elicitationId: 'e1', message: 'Sign in' }) });
    await assert.rejects(w.run('alice').done, (error: unknown) => {
      assert.ok(error instanceof UrlElicitationRequiredError);
      assert.equal(error.code, URL_ELICITATION_REQUIRED);
      assert.deepEqual(error.data, { elicitations: [{ mode: 'url', url: 'https://gw.example.com/oauth/start/x', elicitationId: 'e1', message: 'Sign in' }] });
      return true;
    });
    assert.equal(w.opened.length, 0);
  });

  it('anonymous-caller-on-per-user-server is denied; without an authority the host refuses per-user servers outright', T, async () => {
    const w = world();
    await assert.rejects(w.run(undefined).done, DeniedError);
    const bare = refuseOtherModes({ spec: spec('per-user') } as Downstream, () => Promise.resolve('sent'));
    await assert.rejects(bare({} as McpClient, { signal: new AbortController().signal, timeoutMs: 0 }), /not set up/);
    assert.equal(w.opened.length, 0);
  });

  it('a 401 renews the token once; a 401 for the token already renewed (a request sent before the renewal) retries without renewing again', T, async () => {
    const stale: string[] = [];
    const w = world({
      renew: (_p, c) => {
        stale.push(c.tokens.accessToken);
        return Promise.resolve({ ...c, tokens: { ...c.tokens, accessToken: `${c.tokens.accessToken}-renewed` } });
      },
    });
    await w.run('alice').done;
    const hooks = (w.opened[0] as { hooks: PrincipalAuthHooks }).hooks;
    const refused = { status: 401, wwwAuthenticate: 'Bearer error="invalid_token"', authorization: 'Bearer token-of-alice' };
    assert.equal(await hooks.onUnauthorized(refused), true);
    assert.deepEqual(await hooks.authorizationHeaders('POST', 'https://mcp.example.com/mcp'), { authorization: 'Bearer token-of-alice-renewed' });
    // A second request sent with the old token, refused after the renewal: sent again, no second renewal.
    assert.equal(await hooks.onUnauthorized(refused), true);
    assert.deepEqual(stale, ['token-of-alice']);
    // The renewed token refused in turn: renewed (once more).
    assert.equal(await hooks.onUnauthorized({ ...refused, authorization: 'Bearer token-of-alice-renewed' }), true);
    assert.deepEqual(stale, ['token-of-alice', 'token-of-alice-renewed']);
  });

  it('the pool is capped (least recently used closed first) and idle clients are closed', T, async () => {
    const w = world({ maxClients: 2, idleMs: 1_000 });
    await w.run('alice').done;
    await w.run('bob').done;
    await w.run('alice').done;
    await w.run('carol').done; // evicts bob, the least recently used
    assert.equal(w.authority.clientCount('gh'), 2);
    assert.deepEqual(w.opened.map((o) => o.closed), [false, true, false]);
    w.advance(5_000);
    await w.run('dave').done; // alice and carol idle: closed
    assert.equal(w.authority.clientCount('gh'), 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(w.opened.map((o) => o.closed), [true, true, true, false]);
    await w.authority.close();
  });

  it('a shared server runs on its own client; the audit note says shared once the request goes out', T, async () => {
    const w = world();
    const shared = { spec: spec('shared') } as Downstream;
    const c = ctx();
    const task = w.authority.wrap(shared, { id: 'alice' }, c, () => Promise.resolve('on the shared client'));
    assert.equal(credentialOf(c), undefined);
    assert.equal(await task({} as McpClient, { signal: new AbortController().signal, timeoutMs: 0 }), 'on the shared client');
    assert.deepEqual(credentialOf(c), { mode: 'shared' });
    assert.equal(w.opened.length, 0);
  });

  it('connected: from the store for per-user servers, always for shared ones, never for an anonymous caller', T, async () => {
    const store = new MemoryConnectionStore();
    await store.put(connection('alice'));
    const authority = new DownstreamAuthority({ credentials: () => undefined, store, transport: () => Promise.reject(new Error('unused')), clientInfo: { name: 't', version: '1' } });
    assert.equal(await authority.connected('alice', spec('per-user')), true);
    assert.equal(await authority.connected('bob', spec('per-user')), false);
    assert.equal(await authority.connected(undefined, spec('per-user')), false);
    assert.equal(await authority.connected(undefined, spec('shared')), true);
  });

  it('connected-across-tenants: a connection made under one tenant does not count for the same id under another', T, async () => {
    const store = new MemoryConnectionStore();
    await store.put({ ...connection('alice'), tenant: 'acme' });
    const authority = new DownstreamAuthority({ credentials: () => undefined, store, transport: () => Promise.reject(new Error('unused')), clientInfo: { name: 't', version: '1' } });
    assert.equal(await authority.connected('alice', spec('per-user'), 'acme'), true);
    assert.equal(await authority.connected('alice', spec('per-user'), 'evil'), false);
    assert.equal(await authority.connected('alice', spec('per-user')), false, 'no tenant is not tenant acme');
  });
});

describe('host/principalClients: the sign-in a 2026-07-28 caller is given', () => {
  const needed = new UrlElicitationRequiredError('gh', { url: 'https://gw.example/oauth/start/abc', elicitationId: 'abc', message: 'Sign in to gh' });

  it('a client declaring elicitation.url gets input_required carrying the URL-mode elicitation', { timeout: 5_000 }, () => {
    const answer = signInInputRequired(needed, true, { elicitation: { url: {} } });
    assert.deepEqual(answer, { resultType: 'input_required', inputRequests: { 'switchboard.sign-in': { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in to gh', url: 'https://gw.example/oauth/start/abc' } } } });
  });

  it('undeclared-mode: a client without elicitation.url (form only, or none) is never sent a URL-mode elicitation; it gets -32021 naming the capability', { timeout: 5_000 }, () => {
    for (const caps of [{}, { elicitation: {} }, { elicitation: { form: {} } }]) {
      assert.equal(signInInputRequired(needed, true, caps), undefined);
      const error = signInUnsupported(needed, true, caps);
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
      assert.deepEqual(error.data, { requiredCapabilities: { elicitation: { url: {} } } });
      assert.match(error.message, /gh needs you to sign in first; this client does not declare the elicitation\.url capability/);
      assert.ok(!error.message.includes('oauth/start'), 'the link is not put where the client cannot show it as one');
    }
  });

  it('a stateful (2025-11-25) caller keeps the -32042 error; other errors pass unchanged', { timeout: 5_000 }, () => {
    assert.equal(signInInputRequired(needed, false, { elicitation: { url: {} } }), undefined);
    assert.equal(signInUnsupported(needed, false, {}), needed);
    const other = new Error('x');
    assert.equal(signInUnsupported(other, true, {}), other);
  });
});
