import type { FetchLike } from '../../../src/auth/http.js';
import type { ConsoleOptions } from '../../../src/console/consoleTypes.js';
import type { Connection } from '../../../src/host/connections.js';
import type { HttpRequestLike } from '../../../src/transport/http/server/types.js';
import { ConsoleMetrics } from '../../../src/console/consoleMetrics.js';
import { parseConfig } from '../../../src/host/config.js';
import { Host } from '../../../src/host/host.js';

/** The options of a console over a host without servers on `origin`, at the clock `now`, signed in with `adminToken`; `extra` adds the rest. */
export async function consoleOptions(adminToken: string, origin: string, now: () => number, extra: Partial<ConsoleOptions> = {}): Promise<ConsoleOptions> {
  const host = await Host.open({ servers: [], transport: () => Promise.reject(new Error('no servers in this test')) });
  const config = parseConfig('{"mcpServers":{}}', { file: '/tmp/switchboard.json', env: {} });
  return {
    host,
    config: () => config,
    adminToken,
    assets: () => Promise.resolve(undefined),
    metrics: new ConsoleMetrics({ now }),
    gateway: { transport: 'http', version: '0.1.0', startedAt: now(), url: () => `${origin}/mcp` },
    now,
    ...extra,
  };
}

/** A connection of `principal` at `server` made at `at`, whose tokens carry recognisable secret text (`…SECRET…`); expiring an hour after `now`. */
export function sampleConnection(principal: string, server: string, serverId: string, at: number, now: number, tenant?: string): Connection {
  return {
    principal,
    server,
    serverId,
    ...(tenant !== undefined ? { tenant } : {}),
    mode: 'per-user',
    tokens: { accessToken: `ACCESS-SECRET-${principal}-${serverId}`, refreshToken: `REFRESH-SECRET-${principal}-${serverId}`, tokenType: 'Bearer', expiresAt: now + 3_600_000, grantedScope: 'repo read:user', requestedScopes: ['repo'], issuer: SAMPLE_ISSUER, resource: server },
    createdAt: at,
    updatedAt: at + 1,
  };
}

/** A JSON request to the console on `host` (`path` may carry a query). */
export function jsonRequest(host: string, method: string, path: string, headers: Record<string, string>, body?: unknown): HttpRequestLike {
  const q = path.indexOf('?');
  const all: Record<string, string> = { host, 'content-type': 'application/json', ...headers };
  return { method, path: q < 0 ? path : path.slice(0, q), query: q < 0 ? undefined : path.slice(q + 1), header: (n) => all[n], ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}) };
}

/** The issuer of {@link sampleConnection}'s tokens. */
export const SAMPLE_ISSUER = 'https://as.example';
const AS = SAMPLE_ISSUER;

/** An authorization server answering its metadata (with a revocation endpoint) and recording each revocation request's form. */
export function fakeAs(): { fetch: FetchLike; revocations: URLSearchParams[] } {
  const revocations: URLSearchParams[] = [];
  const fetch: FetchLike = (input, init) => {
    const url = String(input);
    if (url === `${AS}/.well-known/oauth-authorization-server`) return Promise.resolve(Response.json({ issuer: AS, token_endpoint: `${AS}/token`, revocation_endpoint: `${AS}/revoke` }));
    if (url === `${AS}/revoke` && init?.method === 'POST') {
      revocations.push(new URLSearchParams(String(init.body)));
      return Promise.resolve(new Response(null, { status: 200 }));
    }
    return Promise.resolve(new Response('not found', { status: 404 }));
  };
  return { fetch, revocations };
}
