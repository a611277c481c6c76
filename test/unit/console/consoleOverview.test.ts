// The overview's data for the page: a gateway whose only servers wait for launch approval does not
// say "No servers configured" (it names them), and the latency chart leaves out the time a call
// waited for a person's consent (#33, smaller things).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleMetrics } from '../../../src/console/consoleMetrics.js';
import { overview } from '../../../src/console/consoleOverview.js';
import type { PendingLaunch } from '../../../src/console/consoleTypes.js';
import { interceptContext, InterceptorChain } from '../../../src/host/interceptors.js';
import { consoleOptions } from './support.js';

const NOW = Date.UTC(2026, 11, 5, 8);
const PENDING: PendingLaunch = { server: 'files', command: 'npx', args: ['-y', 'server-filesystem', '.'], cwd: null, startsIn: '/home/user', env: [], digest: 'sha256:00', reason: 'not approved yet', findings: [] };

describe('console: overview', () => {
  it('names the local servers whose launch waits for approval', { timeout: 10_000 }, async () => {
    const options = await consoleOptions('a'.repeat(43), 'http://127.0.0.1:8765', () => NOW, { launches: { pending: () => [PENDING], approve: () => Promise.resolve(true) } });
    const data = overview(options) as { servers: unknown[]; pendingLaunches: string[] };
    assert.deepEqual(data.servers, []);
    assert.deepEqual(data.pendingLaunches, ['files']);
    await options.host.close();
  });

  it('a call that waited 5 s for consent counts only its own time as latency', { timeout: 10_000 }, async () => {
    let clock = 1_000;
    const metrics = new ConsoleMetrics({ now: () => NOW });
    const realNow = performance.now.bind(performance);
    const tick = (ms: number): void => void (clock += ms);
    performance.now = () => clock;
    try {
      const chain = new InterceptorChain([
        metrics.interceptor(),
        {
          id: 'consent',
          phase: 'consent',
          intercept: (ctx, next) => {
            tick(5_000); // a person took 5 s to answer
            ctx.record({ interceptor: 'consent', outcome: 'allow', reason: 'approved by admin', detail: { waitedMs: 5_000 } });
            return next();
          },
        },
      ]);
      const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'mail' }, exposedName: 'mail__send', params: { name: 'send' }, signal: new AbortController().signal });
      await chain.run(ctx, () => {
        tick(40); // the server's own time
        return Promise.resolve({ content: [] });
      });
    } finally {
      performance.now = realNow;
    }
    const bucket = metrics.series('mail').at(-1);
    assert.equal(bucket?.calls, 1);
    assert.equal(bucket?.avgMs, 40);
  });
});
