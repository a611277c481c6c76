/**
 * `switchboard/adapters/node-host`: the Node pieces of a host (`switchboard/host`). The
 * default transport factory ({@link defaultTransportFactory}: stdio servers as child
 * processes, remote servers over `nodeFetch` from `switchboard/adapters/node`) and the OAuth wiring of remote servers
 * ({@link downstreamOAuth} and its transport hooks).
 *
 * These are not in `switchboard/adapters/node`: they load the host, the client and the CEL
 * policy library. A process that only serves an MCP server on `node:http` does not need them.
 *
 * @module
 */
export { defaultTransportFactory, type DefaultTransportOptions } from './hostTransports.js';
export { downstreamOAuth, loginRequired, oauthTransportHooks, unconfiguredOAuthHooks, type AuthHooks, type OAuthHooks, type DownstreamOAuth, type DownstreamOAuthOptions } from './hostOAuth.js';
