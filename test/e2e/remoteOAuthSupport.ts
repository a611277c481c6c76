/**
 * The world of the remote-OAuth end-to-end tests: the development authorization server and
 * OAuth-protected Switchboard MCP servers (the resource-server layer) on their own 127.0.0.1
 * ports, all on one adjustable clock, each server recording the `Authorization` headers it
 * received; an unprotected server beside them; and the "browser" that approves a sign-in.
 *
 * @module
 */
import { createServer } from 'node:net';
import { listen, type ListeningServer } from '../../src/adapters/nodeHttp.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../src/auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../../src/auth/http.js';
import { createBearerVerifier } from '../../src/auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../../src/auth/resource/protectedResourceMetadata.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { authFetchHandler } from '../../src/transport/http/server/authFetchHandler.js';
import { createStreamableHttpHandler } from '../../src/transport/http/server/server.js';
import { lateHandler } from '../fixtures/lateHandler.js';

export const insecure = { [allowInsecureRequests]: true } as const;

/** A clock tests move forward (tokens expire on it for the AS, the resource and our client alike). */
export interface Clock {
  readonly now: () => number;
  advance(ms: number): void;
}

/** A clock starting at the real time. */
export function clock(): Clock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

const origin = (running: ListeningServer): string => running.url.replace(/\/$/, '');

/** The dev AS on 127.0.0.1:0. */
export async function startAuthorizationServer(now: () => number): Promise<{ as: DevAuthorizationServer; close(): Promise<void> }> {
  const ref: { as?: DevAuthorizationServer; origin: string } = { origin: '' };
  const running = await listen(authFetchHandler((r) => ref.as?.handler(r) ?? Promise.resolve(new Response(null, { status: 503 })), { origin: () => ref.origin }));
  ref.origin = origin(running);
  ref.as = await createDevAuthorizationServer({ issuer: ref.origin, scopesSupported: ['mcp:read', 'offline_access'], accessTokenTtlSec: 300, now, ...insecure });
  return { as: ref.as, close: () => running.close() };
}

/** An MCP server on 127.0.0.1:0 and what it saw. */
export interface RecordingServer {
  readonly url: string;
  /** The `Authorization` header of every request (`null` when absent), in order. */
  readonly seen: (string | null)[];
  close(): Promise<void>;
}

function server(name: string): McpServer {
  const mcp = new McpServer({ name, version: '1.0.0' });
  mcp.tool(`${name}_echo`, { description: 'Echoes its message.', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }, (args) => `${name}: ${String(args['message'])}`);
  return mcp;
}

/** Serves a fresh `McpServer` named `name` (tool `<name>_echo`); with `as`, protected by it (scope `mcp:read`). */
export async function startServer(name: string, protect?: { readonly as: DevAuthorizationServer; readonly now: () => number }): Promise<RecordingServer> {
  const seen: (string | null)[] = [];
  const { handler, settle } = lateHandler({ before: (request) => seen.push(request.header('authorization') ?? null) });
  const mcp = server(name);
  const running = await listen(handler);
  const url = `${origin(running)}/mcp`;
  if (protect === undefined) settle(createStreamableHttpHandler(mcp, { path: '/mcp' }));
  else {
    const { as, now } = protect;
    const resourceMetadata = protectedResourceMetadata({ resource: url, authorizationServers: [as.issuer], scopesSupported: ['mcp:read'], ...insecure });
    const verifier = createBearerVerifier({ resource: url, issuers: [as.issuer], jwks: { keys: as.jwks().keys }, now, ...insecure });
    settle(createStreamableHttpHandler(mcp, { path: '/mcp', auth: { verifier, resourceMetadata, scopes: { always: ['mcp:read'] } } }));
  }
  return {
    url,
    seen,
    async close() {
      await handler.close();
      await running.close();
      await mcp.close();
    },
  };
}

/** A free loopback port (for the sign-in's redirect listener, which must know its port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Plays the browser: opens the authorization URL; the dev AS approves and redirects to the
 * loopback listener, which `fetch` follows. Failures are kept for the test to assert on.
 */
export function browser(): { readonly prompt: (url: URL) => void; readonly opened: URL[]; readonly failures: unknown[] } {
  const opened: URL[] = [];
  const failures: unknown[] = [];
  return {
    opened,
    failures,
    prompt: (url) => {
      opened.push(url);
      fetch(url, { redirect: 'follow' }).then(
        (response) => response.arrayBuffer(),
        (error: unknown) => failures.push(error),
      );
    },
  };
}
