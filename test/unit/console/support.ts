import type { ConsoleOptions } from '../../../src/console/consoleTypes.js';
import { ConsoleMetrics } from '../../../src/console/consoleMetrics.js';
import { parseConfig } from '../../../src/host/config.js';
import { Host } from '../../../src/host/host.js';

/** The options of a console over a host without servers on `origin`, at the clock `now`, signed in with `adminToken`; `extra` adds the rest. */
export async function consoleOptions(adminToken: string, origin: string, now: () => number, extra: Partial<ConsoleOptions> = {}): Promise<ConsoleOptions> {
  const host = await Host.open({ servers: [], transport: () => Promise.reject(new Error('no servers in this test')) });
  const config = parseConfig('{"mcpServers":{}}', { file: '/tmp/switchboard.json', env: {} });
  return {
    host,
    config: () => config,
    adminToken,
    assets: () => Promise.resolve(undefined),
    metrics: new ConsoleMetrics({ now }),
    gateway: { transport: 'http', version: '0.1.0', startedAt: now(), url: () => `${origin}/mcp` },
    now,
    ...extra,
  };
}
