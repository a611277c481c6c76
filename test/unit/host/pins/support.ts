/**
 * Helpers for the pin tests: a host over in-memory servers whose tools a test can change
 * mid-session (the server sends list_changed), with a {@link PinTrust} on a memory store.
 *
 * @module
 */
import { Host, type HostChange } from '../../../../src/host/host.js';
import { PinTrust, type PinTrustOptions } from '../../../../src/host/pins/pinTrust.js';
import { MemoryPinStore, type PinStore } from '../../../../src/host/pins/pinStore.js';
import type { DownstreamSpec } from '../../../../src/host/spec.js';
import type { ToolDefinition } from '../../../../src/server/types.js';
import { McpServer, type McpServerOptions } from '../../../../src/server/mcpServer.js';
import type { Middleware } from '../../../../src/server/middleware.js';
import { memoryServers } from '../support/memoryServers.js';

/** A tool as the test server defines it. */
export type TestTool = { readonly name: string } & Omit<ToolDefinition, 'name'>;

/** The benign `weather` tool. */
export const WEATHER: TestTool = {
  name: 'weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  annotations: { readOnlyHint: true, destructiveHint: false },
};

/** The benign `add` tool. */
export const ADD: TestTool = { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } };

/** A spec for an in-memory server with its own launch (so its identity is its own). */
export function spec(id: string, command = `server-${id}`): DownstreamSpec {
  return {
    id,
    launch: { kind: 'stdio', command, args: ['--stdio'], env: {}, cwd: undefined },
    options: { tools: { allow: undefined, deny: [] }, timeoutMs: 5_000, maxConcurrency: 4, era: 'auto', oauth: undefined },
  };
}

/** A host whose servers (by `serverInfo.name` = `name`) serve `tools`; `calls` counts each tool's calls reaching a server. */
export interface PinnedHost {
  readonly host: Host;
  readonly trust: PinTrust;
  readonly store: PinStore;
  readonly calls: Map<string, number>;
  /** Replaces the tools of the live server `id` (one list_changed) and resolves once the host's tools or withheld items changed. */
  change(id: string, tools: readonly TestTool[]): Promise<void>;
  close(): Promise<void>;
}

/** Opens and starts a host over `specs`, each server serving `tools` (or `toolsOf(id)`). */
export async function pinnedHost(
  specs: readonly DownstreamSpec[],
  tools: readonly TestTool[] | ((id: string) => readonly TestTool[]),
  options: { store?: PinStore; trust?: Partial<PinTrustOptions>; server?: (id: string) => McpServerOptions; name?: (id: string) => string; middleware?: Middleware } = {},
): Promise<PinnedHost> {
  const calls = new Map<string, number>();
  const live = new Map<string, { server: McpServer; handles: Map<string, { remove(): void }> }>();
  const register = (id: string, server: McpServer, handles: Map<string, { remove(): void }>, list: readonly TestTool[]): void => {
    for (const { name, ...definition } of list) {
      handles.set(
        name,
        server.tool(name, definition as ToolDefinition, () => {
          calls.set(`${id}/${name}`, (calls.get(`${id}/${name}`) ?? 0) + 1);
          return `${name} ran`;
        }),
      );
    }
  };
  const servers = memoryServers((id) => {
    const server = new McpServer({ name: options.name?.(id) ?? id, version: '1.0.0' }, options.server?.(id) ?? {});
    if (options.middleware !== undefined) server.use(options.middleware);
    const handles = new Map<string, { remove(): void }>();
    register(id, server, handles, typeof tools === 'function' ? tools(id) : tools);
    live.set(id, { server, handles });
    return server;
  });
  const store = options.store ?? new MemoryPinStore();
  const trust = await PinTrust.open({ store, ...options.trust });
  const host = await Host.open({ servers: specs, transport: servers.factory, trust, interceptors: [trust.interceptor()], backoff: { initialMs: 5 } });
  await host.start();
  return {
    host,
    trust,
    store,
    calls,
    async change(id, next) {
      const entry = live.get(id);
      if (entry === undefined) throw new Error(`no live server ${id}`);
      const rebuilt = new Promise<void>((resolve) => {
        const stop = host.onChange((c: HostChange) => {
          if (c === 'tools' || c === 'withheld') {
            stop();
            resolve();
          }
        });
      });
      await entry.server.batchChanges(() => {
        for (const h of entry.handles.values()) h.remove();
        entry.handles.clear();
        register(id, entry.server, entry.handles, next);
      });
      await rebuilt;
    },
    async close() {
      await host.close();
    },
  };
}
