/**
 * Protecting a server with OAuth 2.1, end to end on 127.0.0.1: the development authorization
 * server, an MCP server that only answers bearer tokens issued for it, and our `McpClient`
 * obtaining one on its own (Protected Resource Metadata discovery, Dynamic Client
 * Registration, PKCE S256, `resource`, RFC 9207 `iss`) and stepping up when a tool needs more
 * scope. Run with `npx tsx examples/server-oauth.ts`; it prints what happens and exits.
 *
 * The dev authorization server approves everyone without asking: it is for local tries and
 * tests only. In production, point `authorizationServers`/`issuers`/`jwks` at your real one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'switchboard/adapters/node';
import {
  allowInsecureRequests,
  createBearerVerifier,
  createOAuthClientProvider,
  followRedirectAuthorizer,
  protectedResourceMetadata,
} from 'switchboard/auth';
import { createDevAuthorizationServer } from 'switchboard/auth/dev';
import { McpClient } from 'switchboard/client';
import { McpServer } from 'switchboard/server';
import { authFetchHandler, createStreamableHttpHandler, StreamableHttpClientTransport } from 'switchboard/transport/http';

// http://127.0.0.1 only: a unique-symbol switch, so no JSON config can turn HTTPS checks off.
const insecure = { [allowInsecureRequests]: true } as const;

/** Binds a Node server to a free 127.0.0.1 port first: the URLs (issuer, resource) name the port. */
async function bind(): Promise<{ server: Server; origin: string }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// 1. The (development-only) authorization server, on its own port.
const asHttp = await bind();
const devAs = await createDevAuthorizationServer({ issuer: asHttp.origin, scopesSupported: ['mcp:read', 'mcp:deploy'], ...insecure });
asHttp.server.on('request', toNodeHandler(authFetchHandler((request) => devAs.handler(request), { origin: devAs.issuer })));

// 2. The protected MCP server: audience = its own resource URL.
const mcpHttp = await bind();
const resource = `${mcpHttp.origin}/mcp`;
const server = new McpServer({ name: 'protected-weather', version: '1.0.0' });
server.tool('whoami', { description: 'Who the server thinks you are.' }, (_args, ctx) => {
  const auth = ctx.principal?.auth; // claims only, never the token
  return `${ctx.principal?.id ?? 'nobody'} with scopes [${auth?.scopes.join(' ') ?? ''}]`;
});
server.tool('deploy', { description: 'Needs the mcp:deploy scope.' }, () => 'deployed the forecast model');

const handler = createStreamableHttpHandler(server, {
  path: '/mcp',
  auth: {
    resourceMetadata: protectedResourceMetadata({ resource, authorizationServers: [devAs.issuer], scopesSupported: ['mcp:read'], ...insecure }),
    verifier: createBearerVerifier({ resource, issuers: [devAs.issuer], jwks: { url: devAs.jwksUri }, ...insecure }),
    // Every request needs mcp:read; the deploy tool needs mcp:deploy too (403 → step-up).
    scopes: { always: ['mcp:read'], tools: { deploy: ['mcp:deploy'] } },
  },
});
mcpHttp.server.on('request', toNodeHandler(handler));
console.log(`authorization server (dev only): ${devAs.issuer}`);
console.log(`protected MCP server:            ${resource}`);

// 3. Our client: the OAuth client provider answers the server's 401/403 challenges.
const redirectUri = 'http://127.0.0.1:53682/callback';
const oauth = createOAuthClientProvider({
  serverUrl: resource,
  redirectUri,
  // A real app opens the browser and waits on the redirect URI; the dev AS approves at once,
  // so following its redirect in-process is enough here.
  authorize: followRedirectAuthorizer((input, init) => fetch(input, init)),
  clientMetadata: { client_name: 'server-oauth example', redirect_uris: [redirectUri] },
  ...insecure,
});
const transport = new StreamableHttpClientTransport({
  url: resource,
  authorize: () => oauth.getAccessToken(),
  onUnauthorized: (info) => oauth.handleChallenge({ status: info.status, wwwAuthenticate: info.wwwAuthenticate ?? null }),
});
const client = new McpClient({ name: 'server-oauth-example', version: '1.0.0' });

let failed = false;
try {
  await client.connect(transport);
  const text = (result: { content?: readonly unknown[] }): string => (result.content?.[0] as { text?: string } | undefined)?.text ?? '';
  console.log('whoami:', text(await client.callTool('whoami', {})));
  console.log('deploy (after step-up):', text(await client.callTool('deploy', {})));
  console.log('whoami now:', text(await client.callTool('whoami', {})));
  const registered = devAs.events.filter((e) => e.endpoint === 'register').length;
  const authorized = devAs.events.filter((e) => e.endpoint === 'authorize').map((e) => e.params['scope']);
  console.log(`client registrations: ${registered}; authorizations with scopes: ${authorized.join(' | ')}`);
} catch (error) {
  failed = true;
  console.error('the example failed:', error);
} finally {
  await client.close().catch(() => undefined);
  await handler.close();
  for (const s of [mcpHttp.server, asHttp.server]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
process.exit(failed ? 1 : 0);
