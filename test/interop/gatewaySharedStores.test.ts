// E2E: two real `switchboard gateway` processes on one config with `switchboard.store`
// (PostgreSQL) and `switchboard.cache` (Redis): a rate limit per principal holds across both
// (calls spread over the instances do not get twice the limit), and both write ONE audit chain
// that `switchboard audit verify --store` finds intact with every call of both instances.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { POSTGRES_URL, REDIS_URL, freshSchema, openTestPostgres, openTestRedis } from '../contract/stores/backends.js';
import { MAIN, everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let config: GatewayConfig;
const gateways: RunningGateway[] = [];
const schema = freshSchema();
const prefix = `sbtest:${randomBytes(6).toString('hex')}:`;
const store = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
const cache = `${REDIS_URL}?prefix=${encodeURIComponent(prefix)}`;

before(async () => {
  // Opened here too, so the schema and the keys are dropped after the file (and a missing server fails clearly).
  await openTestPostgres({ schema });
  await openTestRedis({ prefix });
  config = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never', store, cache, guards: { rateLimits: [{ by: ['principal'], max: 6, perMs: 3_600_000 }] } });
  gateways.push(await startGateway(config));
  gateways.push(await startGateway(config));
});

after(async () => {
  for (const g of gateways) await g.stop();
  await config.remove();
});

async function client(g: RunningGateway): Promise<McpClient> {
  const c = new McpClient({ name: 'shared', version: '1' });
  await c.connect(new StreamableHttpClientTransport({ url: g.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${g.token}` } }));
  return c;
}

describe('e2e: two gateway instances on shared PostgreSQL and Redis', () => {
  it('a gateway whose shared store is unreachable does not start (no silent fallback to per-instance state)', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = spawnSync(process.execPath, [MAIN, 'gateway', '--config', config.file, '--port', '0', '--yes', '--cache', `redis://127.0.0.1:${port}`], { cwd: config.dir, encoding: 'utf8', timeout: 30_000 });
    assert.notEqual(down.status, 0);
    assert.match(down.stderr, /Redis is unavailable for opening the cache: .*ECONNREFUSED.*The gateway did not start/);
  });

  it('a rate limit of 6 per principal holds across both instances: 10 calls spread over them, 6 answered', async () => {
    const clients = [await client(gateways[0] as RunningGateway), await client(gateways[1] as RunningGateway)];
    let answered = 0;
    let refused = 0;
    for (let i = 0; i < 10; i++) {
      try {
        const result = await (clients[i % 2] as McpClient).callTool('echo', { message: `m${i}` });
        if (result.isError === true) refused++;
        else answered++;
      } catch (error) {
        assert.match(String(error), /rate limit of 6/);
        refused++;
      }
    }
    for (const c of clients) await c.close();
    assert.deepEqual({ answered, refused }, { answered: 6, refused: 4 });
  });

  it('both instances wrote one audit chain: `switchboard audit verify --store` finds it intact with all 10 calls', () => {
    const verify = spawnSync(process.execPath, [MAIN, 'audit', 'verify', '--store', store, '--json'], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const report = JSON.parse(verify.stdout) as { ok: boolean; records: number };
    assert.equal(report.ok, true);
    const exported = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { encoding: 'utf8' });
    assert.equal(exported.status, 0, exported.stderr);
    const calls = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { method: string; outcome: string }).filter((r) => r.method === 'tools/call');
    assert.deepEqual({ ok: calls.filter((r) => r.outcome === 'ok').length, denied: calls.filter((r) => r.outcome === 'denied').length }, { ok: 6, denied: 4 });
  });
});
