// E2E: the real `switchboard gateway` reloads its policy when the config file changes: a rule
// added takes effect on the next call, a rule that does not compile is refused (the running
// policy keeps denying), and both are in the audit log.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { everythingEntry, startGateway, stderrMatches, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let config: GatewayConfig;
let gateway: RunningGateway;
let client: McpClient;

const section = (rules: unknown[]): Record<string, unknown> => ({ namespacing: 'never', stateDir: '.switchboard', policy: { rules } });
const rewrite = (rules: unknown[]): Promise<void> => writeFile(config.file, JSON.stringify({ mcpServers: { everything: everythingEntry() }, switchboard: section(rules) }, null, 2));

const echo = async (): Promise<string> => {
  try {
    const r = await client.callTool('echo', { message: 'hi' });
    return r.isError === true ? `tool-error: ${JSON.stringify(r.content)}` : 'ok';
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

before(async () => {
  config = await writeConfig({ everything: everythingEntry() }, section([]));
  gateway = await startGateway(config);
  client = new McpClient({ name: 'reload', version: '1' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${gateway.token}` } }));
});

after(async () => {
  await client.close().catch(() => undefined);
  await gateway.stop();
  await config.remove();
});

describe('e2e: the policy reloads with the config', () => {
  it('a deny rule written into the running config applies to the next call, and is audited as a policy change', async () => {
    assert.equal(await echo(), 'ok');
    const from = gateway.stderr().length;
    await rewrite([{ id: 'no-echo', when: 'tool.name == "echo"', outcome: 'deny', reason: 'echo is closed' }]);
    await stderrMatches(gateway, /policy reloaded \(rules added: no-echo\)/, from);
    assert.match(await echo(), /echo is closed/);
  });

  it('a rule that does not compile (an unknown field) is refused naming its path; the running policy keeps denying', async () => {
    const from = gateway.stderr().length;
    await rewrite([{ id: 'no-echo', when: 'tool.nmae == "echo"', outcome: 'deny' }]);
    await stderrMatches(gateway, /config not reloaded, the running one is kept: .*\$\.switchboard\.policy\.rules\[0\]\.when/, from);
    assert.match(await echo(), /echo is closed/);
  });

  it('the audit log holds the policy change (rule and digests) and the refused reload', () => {
    const db = new Database(join(config.dir, '.switchboard', 'audit.db'), { readonly: true });
    const rows = (db.prepare("SELECT line FROM audit WHERE line LIKE '%\"kind\":\"policy\"%' OR line LIKE '%\"kind\":\"config\"%' ORDER BY seq").all() as { line: string }[]).map((r) => JSON.parse(r.line) as { kind: string; outcome: string; error?: string; decisions: { detail?: { added?: string[]; from?: string; to?: string } }[] });
    db.close();
    assert.deepEqual(rows.map((r) => [r.kind, r.outcome]), [['policy', 'ok'], ['config', 'error']]);
    assert.deepEqual(rows[0]?.decisions[0]?.detail?.added, ['no-echo']);
    assert.match(rows[0]?.decisions[0]?.detail?.to ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.match(rows[1]?.error ?? '', /\$\.switchboard\.policy\.rules\[0\]\.when/);
  });
});
