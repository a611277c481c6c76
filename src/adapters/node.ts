/**
 * `switchboard/adapters/node`: the Node pieces around the runtime-neutral HTTP transport.
 * {@link toNodeHandler} / {@link listen} serve a Streamable HTTP handler on `node:http`;
 * {@link nodeFetch} is a keep-alive `fetch` on `node:http`/`node:https` for the client
 * transport, about 3 times cheaper per call than Node 20's global `fetch`.
 *
 * The host's Node pieces (`defaultTransportFactory`, the downstream OAuth helpers) are in
 * `switchboard/adapters/node-host`, so that serving a server does not load the host.
 *
 * @module
 */
export { DEFAULT_SERVER_LIMITS, listen, toNodeHandler, type ListenOptions, type ListeningServer, type NodeHandlerOptions, type NodeRequestListener, type ServerLimits } from './nodeHttp.js';
export { nodeFetch, type NodeFetchOptions } from './nodeFetch.js';
