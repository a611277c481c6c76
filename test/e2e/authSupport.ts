/**
 * The OAuth end-to-end world: the development authorization server and a protected Switchboard
 * MCP server, each on its own 127.0.0.1 port over real HTTP, and raw request helpers for the
 * attack cases.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { listen, type ListeningServer } from '../../src/adapters/nodeHttp.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../src/auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../../src/auth/http.js';
import { createBearerVerifier } from '../../src/auth/resource/bearerVerifier.js';
import type { VerifiedPrincipal } from '../../src/auth/resource/principal.js';
import { protectedResourceMetadata } from '../../src/auth/resource/protectedResourceMetadata.js';
import type { ScopePolicy } from '../../src/auth/resource/scopesForRequest.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { authFetchHandler } from '../../src/transport/http/server/authFetchHandler.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../src/transport/http/server/server.js';
import type { HttpExtra } from '../../src/transport/http/server/types.js';

export const insecure = { [allowInsecureRequests]: true } as const;
export const POLICY: ScopePolicy = { always: ['mcp:read'], tools: { deploy: ['mcp:deploy'] } };

/** A running authorization server + protected MCP server. */
export interface AuthWorld {
  readonly as: DevAuthorizationServer;
  readonly issuer: string;
  /** The MCP endpoint, which is also the resource identifier. */
  readonly mcpUrl: string;
  /** The `resource_metadata` URL the server's challenges name. */
  readonly metadataUrl: string;
  close(): Promise<void>;
}

/** A handler whose implementation is set once the port is known (the resource URL names it). */
function lateHandler(): { handler: StreamableHttpHandler; set(inner: StreamableHttpHandler): void } {
  let inner: StreamableHttpHandler | undefined;
  const need = (): StreamableHttpHandler => {
    if (inner === undefined) throw new Error('handler not ready');
    return inner;
  };
  return {
    set: (h) => {
      inner = h;
    },
    handler: {
      handle: (r) => need().handle(r),
      fetch: (r) => need().fetch(r),
      maxBodyBytes: 4 * 1024 * 1024,
      get sessionCount() {
        return inner?.sessionCount ?? 0;
      },
      close: () => inner?.close() ?? Promise.resolve(),
    },
  };
}

const origin = (running: ListeningServer): string => running.url.replace(/\/$/, '');

/** The protected server's tools: who am I, a privileged deploy, a token-passthrough probe and an MRTR question. */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.tool('whoami', { description: 'The caller as the server sees it.' }, (_args, ctx) => {
    const auth: VerifiedPrincipal | undefined = ctx.principal?.auth;
    return JSON.stringify({ principal: ctx.principal?.id ?? null, subject: auth?.subject ?? null, scopes: auth?.scopes ?? [], frozen: auth === undefined ? null : Object.isFrozen(auth) });
  });
  server.tool('deploy', { description: 'Needs mcp:deploy.' }, () => 'deployed');
  server.tool('forward', { description: 'Tries to pass the caller token upstream (it must find none).' }, (_args, ctx) => {
    const http = ctx.extra?.['http'] as HttpExtra | undefined;
    const seen = ['authorization', 'Authorization', 'proxy-authorization', 'dpop'].map((n) => http?.getHeader(n) ?? null);
    return JSON.stringify({ seen, extra: ctx.extra });
  });
  server.tool('ask', { description: 'Asks the user for a name (MRTR).' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } as never,
      { key: 'user_name' },
    );
    return `Hello ${String((answer.content as Record<string, unknown> | undefined)?.['name'])}`;
  });
  return server;
}

/** Starts the dev AS and the protected MCP server on 127.0.0.1:0 each. */
export async function startAuthWorld(): Promise<AuthWorld> {
  const ref: { as?: DevAuthorizationServer; origin: string } = { origin: '' };
  const asRunning = await listen(authFetchHandler((r) => ref.as?.handler(r) ?? Promise.resolve(new Response(null, { status: 503 })), { origin: () => ref.origin }));
  ref.origin = origin(asRunning);
  const devAs = await createDevAuthorizationServer({ issuer: ref.origin, scopesSupported: ['mcp:read', 'mcp:deploy', 'offline_access'], ...insecure });
  ref.as = devAs;

  const late = lateHandler();
  const mcpRunning = await listen(late.handler);
  const mcpUrl = `${origin(mcpRunning)}/mcp`;
  const resourceMetadata = protectedResourceMetadata({ resource: mcpUrl, authorizationServers: [devAs.issuer], scopesSupported: ['mcp:read'], ...insecure });
  const verifier = createBearerVerifier({ resource: mcpUrl, issuers: [devAs.issuer], jwks: { url: devAs.jwksUri }, ...insecure });
  const server = mcpServer();
  late.set(createStreamableHttpHandler(server, { path: '/mcp', auth: { verifier, resourceMetadata, scopes: POLICY } }));
  return {
    as: devAs,
    issuer: devAs.issuer,
    mcpUrl,
    metadataUrl: resourceMetadata.metadataUrl,
    async close() {
      await server.close();
      await mcpRunning.close();
      await asRunning.close();
    },
  };
}

const VERSION = '2026-07-28';

/** One raw 2026-07-28 POST (what a conforming client sends) with an optional bearer token. */
export function post2026(
  url: string,
  token: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  options: { caps?: Record<string, unknown>; id?: number } = {},
): Promise<Response> {
  const name = typeof params['name'] === 'string' ? params['name'] : undefined;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(name !== undefined && method === 'tools/call' ? { 'mcp-name': name } : {}),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': options.caps ?? {} } },
    }),
  });
}

/** Asserts a `Bearer` challenge with this server's `resource_metadata` (and `error` when given); returns it. */
export function assertChallenge(response: Response, status: number, metadataUrl: string, error?: string): string {
  assert.equal(response.status, status);
  const challenge = response.headers.get('www-authenticate');
  assert.ok(challenge !== null, 'a WWW-Authenticate challenge');
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), challenge);
  if (error !== undefined) assert.ok(challenge.includes(`error="${error}"`), challenge);
  return challenge;
}

/** The text of the first content block of a `tools/call` result. */
export function textOf(result: { content?: readonly unknown[] } | Record<string, unknown>): string {
  const content = (result as { content?: readonly { type?: string; text?: string }[] }).content;
  const first = content?.[0];
  assert.ok(first !== undefined && first.type === 'text', JSON.stringify(result));
  return first.text ?? '';
}
