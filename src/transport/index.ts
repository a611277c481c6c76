/**
 * Transports: the contract and the in-memory pair. stdio lives at `switchboard/transport/stdio`
 * (it needs `node:` modules).
 *
 * @module
 */
export type { Transport, TransportSink, SendOptions, MessageExtra } from './types.js';
export { createInMemoryPair, type InMemoryOptions } from './memory.js';
export { PRINCIPAL, principalIn, withPrincipal, type Principal } from './principal.js';
