/**
 * The stdio transport, both sides: {@link StdioClientTransport} spawns a server as a child
 * process; {@link StdioServerTransport} serves over an input/output stream pair (the
 * process's stdin and stdout). Exposed as `switchboard/transport/stdio` because it needs
 * `node:` modules.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @module
 */
export { StdioServerTransport, type StdioServerTransportOptions } from './server.js';
export { StdioClientTransport, type StdioClientTransportOptions, type StdioStderr, type ExitStatus } from './client.js';
export { defaultEnvironment, DEFAULT_INHERITED_ENV_VARS } from './env.js';
