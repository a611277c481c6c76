// The scanner on real servers over stdio: the benign definitions of the installed reference
// servers (captured at test time) never block, and every attack fixture of
// test/fixtures/attacks (each its own process) is caught.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { scanServers } from '../../src/host/scanner/scan.js';
import type { ServerSnapshot } from '../../src/host/scanner/types.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';
import { covertExfiltration } from '../fixtures/attacks/covertExfiltration.js';
import { encodedPayload } from '../fixtures/attacks/encodedPayload.js';
import { parameterInjection } from '../fixtures/attacks/parameterInjection.js';
import { poisonedTool } from '../fixtures/attacks/poisonedTool.js';
import { fixtureCommand, type AttackFixture } from '../fixtures/attacks/serve.js';
import { rogueMail, trustedMail } from '../fixtures/attacks/shadowingPair.js';
import { unicodeTag } from '../fixtures/attacks/unicodeTag.js';
import { packageBin, stdioClient } from './support.js';

/** Everything a connected server exposes, as the scanner reads it. */
async function snapshot(server: string, client: McpClient): Promise<ServerSnapshot> {
  const caps = client.serverCapabilities ?? {};
  return {
    server,
    instructions: client.instructions,
    tools: caps['tools'] !== undefined ? await client.listTools() : [],
    prompts: caps['prompts'] !== undefined ? await client.listPrompts() : [],
    resources: caps['resources'] !== undefined ? await client.listResources() : [],
    templates: caps['resources'] !== undefined ? await client.listResourceTemplates() : [],
  };
}

async function fixtureSnapshot(file: string, server: string, args: string[] = []): Promise<ServerSnapshot> {
  const { command, args: base } = fixtureCommand(file);
  const client = new McpClient({ name: 'scanner-test', version: '0.0.1' }, { defaultTimeoutMs: 20_000 });
  await client.connect(new StdioClientTransport({ command, args: [...base, ...args], stderr: 'ignore', env: { PATH: process.env['PATH'] ?? '' } }));
  try {
    return await snapshot(server, client);
  } finally {
    await client.close();
  }
}

describe('interop: the scanner on the reference servers (benign, captured at test time)', () => {
  it('server-everything, server-filesystem and server-memory yield no blocking finding', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-scan-'));
    const clients: [string, McpClient][] = [];
    try {
      clients.push(['everything', await stdioClient(packageBin('@modelcontextprotocol/server-everything'), ['stdio'])]);
      clients.push(['filesystem', await stdioClient(packageBin('@modelcontextprotocol/server-filesystem'), [dir], { handlers: {} })]);
      clients.push(['memory', await stdioClient(packageBin('@modelcontextprotocol/server-memory'), [], {}, dir, { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') })]);
      const snapshots = await Promise.all(clients.map(([id, c]) => snapshot(id, c)));
      const tools = snapshots.reduce((n, s) => n + (s.tools?.length ?? 0), 0);
      assert.ok(tools >= 25, `expected the reference tools, got ${tools}`);
      const report = scanServers(snapshots);
      const blocked = report.items.filter((i) => i.verdict === 'block').map((i) => `${i.server}/${i.item}: ${i.findings.map((f) => f.rule).join(', ')}`);
      assert.deepEqual(blocked, []);
    } finally {
      await Promise.all(clients.map(([, c]) => c.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('interop: the attack fixtures (each a stdio server) are caught', () => {
  const cases: [string, AttackFixture][] = [
    ['poisonedTool.ts', poisonedTool],
    ['unicodeTag.ts', unicodeTag],
    ['covertExfiltration.ts', covertExfiltration],
    ['encodedPayload.ts', encodedPayload],
    ['parameterInjection.ts', parameterInjection],
  ];
  for (const [file, fixture] of cases) {
    it(`${file}: ${fixture.blocked.join(', ')} blocked`, async () => {
      const report = scanServers([await fixtureSnapshot(file, fixture.server)]);
      const blocked = report.items.filter((i) => i.verdict === 'block').map((i) => i.item);
      assert.deepEqual(blocked.sort(), [...fixture.blocked].sort());
    });
  }

  it('shadowingPair.ts: the rogue server\'s look-alike and steering tools are blocked, the trusted one is not', async () => {
    const report = scanServers([await fixtureSnapshot('shadowingPair.ts', 'mail', ['trusted']), await fixtureSnapshot('shadowingPair.ts', 'helper', ['rogue'])]);
    const verdicts = Object.fromEntries(report.items.map((i) => [`${i.server}/${i.item}`, i.verdict]));
    const expected = Object.fromEntries([
      ...trustedMail.tools.map((t) => [`${trustedMail.server}/${t.name}`, 'pass']),
      ...rogueMail.tools.map((t) => [`${rogueMail.server}/${t.name}`, rogueMail.blocked.includes(t.name) ? 'block' : 'pass']),
    ]);
    assert.deepEqual(verdicts, expected);
    assert.equal(Object.keys(expected).length, 3);
  });
});
