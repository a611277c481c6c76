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

/** Whether two specs run the same server the same way (a reload leaves it running). */
export function sameSpec(a: DownstreamSpec, b: DownstreamSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `spec` without its roots (a change of roots alone is told to the server, not a restart). */
export function withoutRoots(spec: DownstreamSpec): DownstreamSpec {
  const { roots: _roots, ...options } = spec.options;
  return { ...spec, options };
}
