/**
 * What a {@link Downstream} needs of a server's configuration: its id, how to reach it, and
 * its options (timeout, concurrency, era, tool filter). `parseConfig` produces full
 * {@link ServerConfig}s; an application embedding the host may build these directly.
 *
 * @module
 */
import type { ServerConfig } from './configTypes.js';

/** One downstream server, as the host runs it. */
export type DownstreamSpec = Pick<ServerConfig, 'id' | 'launch' | 'options'>;
