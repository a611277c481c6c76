// Policy changes reach every gateway instance (issue #15, "one truth"): two real `switchboard
// gateway` processes, each with its own config file and state folder, on one PostgreSQL schema
// (`--store …?schema=`). A rule added to instance A's config file is published as the cluster's
// next policy version; instance B, whose file never changed, denies the newly denied call within
// a second of A applying it (polled with a deadline, no fixed sleep). A stale file on B never
// rolls the cluster back: B's log says it runs the cluster's version.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import type { PgDatabase } from '../../src/store/postgres/pgDatabase.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { POSTGRES_URL, freshSchema, openTestPostgres } from '../contract/stores/backends.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

const dictionary = fileURLToPath(new URL('./changingServer.mjs', import.meta.url));
const schema = freshSchema();
const store = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
const servers = { dictionary: { command: process.execPath, args: [dictionary] } };
const DENY_ECHO = { id: 'no-echo', when: 'tool.name == "echo"', outcome: 'deny', reason: 'echo is switched off' };

const configs: GatewayConfig[] = [];
const gateways: RunningGateway[] = [];
const clients: McpClient[] = [];
let pg: PgDatabase;

/** `echo` through `client`: the text answered, or the denial. */
async function echo(client: McpClient): Promise<string> {
  try {
    const r = (await client.callTool('echo', { message: 'hi' })) as { content: { text?: string }[] };
    return r.content.map((c) => c.text ?? '').join('');
  } catch (error) {
    return String(error);
  }
}

/** Polls `check` every 20 ms until it holds; the ms it took, or a failure after `ms`. */
async function within(ms: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - start;
}

before(async () => {
  pg = await openTestPostgres({ schema });
  for (let i = 0; i < 2; i++) {
    const config = await writeConfig(servers, { namespacing: 'never', store });
    configs.push(config);
    const gateway = await startGateway(config);
    gateways.push(gateway);
    const client = new McpClient({ name: `policy-${i}`, version: '1' });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${gateway.token}` } }));
    clients.push(client);
  }
});

after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const g of gateways) await g.stop();
  for (const c of configs) await c.remove();
});

describe('cluster policy: two gateway processes on one PostgreSQL schema', { timeout: 60_000 }, () => {
  it('a policy change that stays on one instance: a rule added to A\'s config file is enforced by B within a second', async (t) => {
    const [a, b] = clients as [McpClient, McpClient];
    assert.equal(await echo(b), 'hi', 'echo is allowed before the change');
    const file = configs[0]!.file;
    const written = JSON.parse(await readFile(file, 'utf8')) as { switchboard: Record<string, unknown> };
    written.switchboard['policy'] = { rules: [DENY_ECHO] };
    await writeFile(file, JSON.stringify(written, null, 2));
    const onA = await within(10_000, async () => /echo is switched off/.test(await echo(a)), 'instance A applies its own change');
    const onB = await within(1000, async () => /echo is switched off/.test(await echo(b)), 'instance B denies the newly denied call');
    const rows = await pg.query<{ version: string; instance: string }>('reading the cluster policy', 'SELECT version, instance FROM cluster_policy');
    assert.equal(Number(rows[0]?.version), 2, 'version 1 at start, version 2 the change');
    t.diagnostic(`A applied its file ${onA} ms after the write; B denied echo ${onB} ms after A did`);
  });

  it('policy rollback by a stale config file: instance B, started again with its old file, keeps enforcing the cluster\'s policy', async () => {
    await clients[1]!.close();
    await gateways[1]!.stop();
    const restarted = await startGateway(configs[1]!);
    gateways[1] = restarted;
    const client = new McpClient({ name: 'policy-restarted', version: '1' });
    await client.connect(new StreamableHttpClientTransport({ url: restarted.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${restarted.token}` } }));
    clients[1] = client;
    assert.match(await echo(client), /echo is switched off/);
    assert.match(restarted.stderr(), /the cluster runs version 2 .*running the cluster's/);
  });
});
