/**
 * `switchboard/adapters/node`: the Node pieces around the runtime-neutral HTTP transport.
 * {@link toNodeHandler} / {@link listen} serve a Streamable HTTP handler on `node:http`;
 * {@link nodeFetch} is a keep-alive `fetch` on `node:http`/`node:https` for the client
 * transport, about 3 times cheaper per call than Node 20's global `fetch`.
 *
 * @module
 */
export { listen, toNodeHandler, type ListenOptions, type ListeningServer, type NodeHandlerOptions, type NodeRequestListener } from './nodeHttp.js';
export { nodeFetch, type NodeFetchOptions } from './nodeFetch.js';
export { defaultTransportFactory, type DefaultTransportOptions } from './hostTransports.js';
export { downstreamOAuth, loginRequired, oauthTransportHooks, unconfiguredOAuthHooks, type AuthHooks, type DownstreamOAuth, type DownstreamOAuthOptions } from './hostOAuth.js';
