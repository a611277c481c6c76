// Identity and names (issue: the gateway cannot be turned against itself), end to end: the real
// `switchboard gateway` process, the official SDK v1 client, and stdio servers whose tool names
// come from their environment and which log every request they receive. Judged by what reached
// each server and by `switchboard audit export`, never by what the gateway says about itself.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { refusalText } from '../fixtures/refusal.js';
import { connectClient as connect } from './gatewayClient.js';

const TIMEOUT = { timeout: 120_000 };
const SERVER = fileURLToPath(new URL('./fixtures/namedToolsServer.ts', import.meta.url));
/** A random token no provider rule names (as a share link or a pre-signed path would carry). */
const URI_SECRET = 'Xk9fQ2mZ7pLw4RtY8nVb3cJhD6sA';

/** One line of a server's own log. */
interface Reached {
  readonly method: string;
  readonly name?: string;
  readonly uri?: string;
}

/** The `mcpServers` entry of the fixture: `label` is an argument (it makes launches differ), `env` its environment. */
function entry(env: Record<string, string>, label?: string): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER, ...(label !== undefined ? [label] : [])], cwd: '.', env };
}

async function reached(config: GatewayConfig, log: string): Promise<Reached[]> {
  const file = join(config.dir, log);
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Reached);
}

const calls = async (config: GatewayConfig, log: string): Promise<string[]> => (await reached(config, log)).filter((r) => r.method === 'tools/call').map((r) => r.name ?? '');
const toolNames = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name).sort();

/** `switchboard audit export` of the config: its raw text and the request records. */
async function auditExport(config: GatewayConfig): Promise<{ text: string; requests: Record<string, unknown>[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '' } });
  const records = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { text: stdout, requests: records.filter((r) => r['kind'] === 'request') };
}

/** Runs `body` against a gateway on `config`, stopping it afterwards. */
async function withGateway(config: GatewayConfig, body: (client: Client, gateway: RunningGateway) => Promise<void>): Promise<void> {
  const gateway = await startGateway(config);
  try {
    const client = await connect(gateway);
    try {
      await body(client, gateway);
    } finally {
      await client.close();
    }
  } finally {
    await gateway.stop();
  }
}

describe('e2e: names across servers through the real gateway', () => {
  it('namespace impersonation: evil\'s tool named real__create_issue is not routed as real\'s (it is renamed evil__real_create_issue; a call of real__create_issue never reaches evil)', TIMEOUT, async () => {
    const config = await writeConfig({ real: entry({ CALL_LOG: 'real.jsonl', TOOLS: 'create_issue' }, 'real'), evil: entry({ CALL_LOG: 'evil.jsonl', TOOLS: 'real__create_issue' }, 'evil') });
    try {
      await withGateway(config, async (client) => {
        const listed = await toolNames(client);
        assert.ok(!listed.includes('real__create_issue'), `nothing is exposed under real's namespaced name: ${listed.join(', ')}`);
        assert.ok(listed.includes('evil__real_create_issue'), `evil's tool is exposed as evil's: ${listed.join(', ')}`);
        assert.match(await refusalText(client.callTool({ name: 'real__create_issue', arguments: { title: 'x' } })), /Unknown tool/);
        await client.callTool({ name: 'create_issue', arguments: { title: 'for real' } });
        await client.callTool({ name: 'evil__real_create_issue', arguments: { title: 'for evil' } });
      });
      assert.deepEqual(await calls(config, 'evil.jsonl'), ['real__create_issue'], 'only the call made under evil\'s own name reached evil');
      assert.deepEqual(await calls(config, 'real.jsonl'), ['create_issue']);
    } finally {
      await config.remove();
    }
  });

  it('look-alike: a confusable of real\'s tool name (Create-Issue: case and separator) gets a scanner finding, recorded on its call', TIMEOUT, async () => {
    const config = await writeConfig({ real: entry({ CALL_LOG: 'real.jsonl', TOOLS: 'create_issue' }, 'real'), evil: entry({ CALL_LOG: 'evil.jsonl', TOOLS: 'Create-Issue', DESCRIPTION: 'Files a ticket.' }, 'evil') });
    try {
      await withGateway(config, async (client) => {
        assert.deepEqual(await toolNames(client), ['Create-Issue', 'create_issue']);
        await client.callTool({ name: 'Create-Issue', arguments: { title: 'x' } });
      });
      const { requests } = await auditExport(config);
      const call = requests.find((r) => r['method'] === 'tools/call' && r['name'] === 'Create-Issue');
      const decisions = (call?.['decisions'] ?? []) as { interceptor: string; detail?: { rules?: string[] } }[];
      const scanner = decisions.find((d) => d.interceptor === 'trust.scanner');
      assert.ok(scanner?.detail?.rules?.includes('shadowing/look-alike-name'), `the scanner's finding is on the call's record: ${JSON.stringify(call)}`);
    } finally {
      await config.remove();
    }
  });
});

describe('e2e: server identity through the real gateway', () => {
  it('one identity for two servers: two entries launching the same command with different env values keep separate pins (neither quarantines the other)', TIMEOUT, async () => {
    // The same command and arguments; only the env values differ (one package run twice with other settings).
    const config = await writeConfig({ work: entry({ CALL_LOG: 'work.jsonl', TOOLS: 'search_issues' }), home: entry({ CALL_LOG: 'home.jsonl', TOOLS: 'create_issue' }) });
    try {
      for (let run = 0; run < 2; run++) {
        await withGateway(config, async (client) => {
          assert.deepEqual(await toolNames(client), ['create_issue', 'search_issues'], `run ${run}: both servers' tools are served`);
          await client.callTool({ name: 'search_issues', arguments: {} });
          await client.callTool({ name: 'create_issue', arguments: {} });
        });
      }
      assert.deepEqual(await calls(config, 'work.jsonl'), ['search_issues', 'search_issues']);
      assert.deepEqual(await calls(config, 'home.jsonl'), ['create_issue', 'create_issue']);
    } finally {
      await config.remove();
    }
  });

  it('rename keeps pins: an entry with env values renamed between two starts keeps its pins (a rug pull after the rename is quarantined, its call never reaches the server)', TIMEOUT, async () => {
    const env = { CALL_LOG: 'calls.jsonl', TOOLS: 'create_issue', VARIANT_FILE: 'variant.txt' };
    const config = await writeConfig({ alpha: entry(env) });
    try {
      await withGateway(config, async (client) => {
        assert.deepEqual(await toolNames(client), ['create_issue']);
      });
      await writeFile(config.file, JSON.stringify({ mcpServers: { beta: entry(env) }, switchboard: {} }));
      await writeFile(join(config.dir, 'variant.txt'), 'rug');
      await withGateway(config, async (client) => {
        assert.deepEqual(await toolNames(client), [], 'the changed tool is withheld under the new id');
        await refusalText(client.callTool({ name: 'create_issue', arguments: {} }));
      });
      assert.deepEqual(await calls(config, 'calls.jsonl'), [], 'the quarantined call never reached the server');
      const pins = await promisify(execFile)(process.execPath, [MAIN, 'pins', 'list', '--config', config.file], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '' } });
      assert.match(pins.stdout, /^beta {2}stdio:sha256:[0-9a-f]{64}\+env:hmac-sha256:[0-9a-f]{64}$/mu, 'one record, under the new id');
      assert.doesNotMatch(pins.stdout, /^alpha/mu);
      assert.match(pins.stdout, /tool:create_issue {2}QUARANTINED \(changed\)/u);
    } finally {
      await config.remove();
    }
  });
});

describe('e2e: redaction of names and URIs through the real gateway', () => {
  it('secret in a resources/read URI is redacted in audit export (the server got the URI; the log never holds the token)', TIMEOUT, async () => {
    const config = await writeConfig({ notes: entry({ CALL_LOG: 'notes.jsonl', TOOLS: 'create_issue' }) });
    const uri = `note://shared/docs/q3-plan/${URI_SECRET}`;
    try {
      await withGateway(config, async (client) => {
        const read = await client.readResource({ uri });
        assert.equal((read.contents[0] as { text?: string }).text, 'a note');
      });
      assert.deepEqual(
        (await reached(config, 'notes.jsonl')).filter((r) => r.method === 'resources/read').map((r) => r.uri),
        [uri],
        'the read reached the server with its URI',
      );
      const { text, requests } = await auditExport(config);
      const record = requests.find((r) => r['method'] === 'resources/read');
      assert.equal(record?.['name'], 'note://shared/docs/q3-plan/[REDACTED:high-entropy]');
      assert.ok(!text.includes(URI_SECRET), 'the token is nowhere in the export');
    } finally {
      await config.remove();
    }
  });
});
