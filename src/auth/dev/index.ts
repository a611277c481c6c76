/**
 * A development-only OAuth 2.1 authorization server (auto-approving, in memory) for local MCP
 * servers, tests and demos. Its own subpath, `switchboard/auth/dev`, keeps it out of
 * `switchboard/auth`, so an application cannot ship it by accident: never expose it beyond
 * loopback.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 * @module
 */
export {
  createDevAuthorizationServer,
  type DevAuthorizationServer,
  type DevAuthorizationServerEvent,
  type DevAuthorizationServerOptions,
  type DevClient,
  type DevTokenClaims,
} from './devAuthorizationServer.js';
