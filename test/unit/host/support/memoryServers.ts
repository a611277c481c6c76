/**
 * In-process downstream servers for the host tests: a transport factory that connects each
 * start of a server to a fresh `McpServer` over the in-memory pair, and lets a test kill the
 * server side (the transport closes, as when a child process dies).
 *
 * @module
 */
import type { TransportFactory } from '../../../../src/host/downstream.js';
import type { DownstreamSpec } from '../../../../src/host/spec.js';
import { type McpServer } from '../../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../../src/transport/memory.js';
import type { Transport } from '../../../../src/transport/types.js';

/** A server for one start, and a way to kill it. */
export interface MemoryServers {
  readonly factory: TransportFactory;
  /** The servers started so far, per id, newest last. */
  readonly started: Map<string, McpServer[]>;
  /** Closes the newest server-side transport of `id` (the "process" dies). */
  kill(id: string): Promise<void>;
}

/** Builds each start of a server with `build(id, startIndex)`; throwing there fails the start. */
export function memoryServers(build: (id: string, start: number) => McpServer): MemoryServers {
  const started = new Map<string, McpServer[]>();
  const sides = new Map<string, Transport>();
  const factory: TransportFactory = async (spec: DownstreamSpec) => {
    const list = started.get(spec.id) ?? [];
    const server = build(spec.id, list.length);
    list.push(server);
    started.set(spec.id, list);
    const [client, serverSide] = createInMemoryPair();
    await server.connect(serverSide);
    sides.set(spec.id, serverSide);
    return client;
  };
  return {
    factory,
    started,
    async kill(id) {
      await sides.get(id)?.close();
    },
  };
}

/** A spec for an in-memory server. */
export function memorySpec(id: string, options: Partial<DownstreamSpec['options']> = {}): DownstreamSpec {
  return {
    id,
    launch: { kind: 'stdio', command: 'memory', args: [], env: {}, cwd: undefined },
    options: { tools: { allow: undefined, deny: [] }, timeoutMs: 5_000, maxConcurrency: 4, era: 'auto', oauth: undefined, ...options },
  };
}

/** Resolves when `predicate` holds for a value `subscribe` reports. */
export function until<T>(subscribe: (listener: (value: T) => void) => void, predicate: (value: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    let done = false;
    subscribe((value) => {
      if (!done && predicate(value)) {
        done = true;
        resolve(value);
      }
    });
  });
}
