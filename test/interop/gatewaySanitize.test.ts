// E2E through the real `switchboard gateway` process with its default chain: a server whose
// results are poisoned (test/fixtures/attacks/poisonedResult.ts). The client receives the
// sanitised text; the audit log records the injection markers (the session's taint) and holds
// no secret, neither from the error message that leaked a token nor from the server's stderr,
// which the gateway logs only redacted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { LEAKED_TOKEN, SANITISED_PAGE } from '../fixtures/attacks/poisonedResult.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const fixture = fileURLToPath(new URL('../fixtures/attacks/poisonedResult.ts', import.meta.url));
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

let config: GatewayConfig;
let gateway: RunningGateway;
let client: McpClient;

before(async () => {
  config = await writeConfig({ pages: { command: process.execPath, args: ['--import', 'tsx', fixture], cwd: REPO_ROOT } }, { namespacing: 'never' });
  // info: the downstream server's stderr lines are logged at info.
  gateway = await startGateway(config, ['--log-level', 'info']);
  client = new McpClient({ name: 'victim', version: '1' });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
});

after(async () => {
  await client.close().catch(() => undefined);
  await gateway.stop();
  await config.remove();
});

interface Line {
  readonly method: string;
  readonly name?: string;
  readonly outcome: string;
  readonly error?: string;
  readonly decisions: { interceptor: string; outcome: string; detail?: { injection?: boolean; markers?: string[] } }[];
}

describe('e2e: output sanitising and secret redaction in the gateway', () => {
  it('poisoned tool result: the client receives the sanitised text (tag-block, ANSI, zero-width removed)', async () => {
    const result = await client.callTool('fetch_page', { url: 'https://example.com' });
    assert.equal(text(result), SANITISED_PAGE);
    assert.ok(!/[\u{E0000}-\u{E007F}\u200B]/u.test(text(result)) && !text(result).includes(String.fromCharCode(27)));
  });

  it('token in an error message: the client sees the error, the audit DB and the log do not hold the token', async () => {
    const failed = await client.callTool('deploy', {}).then(
      (r) => text(r),
      (e: unknown) => String(e),
    );
    assert.match(failed, /push rejected/u);

    const exported = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--from', '1', '--config', config.file], { cwd: config.dir, encoding: 'utf8' });
    assert.equal(exported.status, 0, exported.stderr);
    const lines = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
    const deploy = lines.find((l) => l.method === 'tools/call' && l.name === 'deploy');
    assert.equal(deploy?.outcome, 'error');
    assert.match(deploy?.error ?? '', /push rejected: token \[REDACTED:github-pat\] lacks the workflow scope/u);
    // The poisoned page's record carries the injection decision the policy engine taints from.
    const fetch = lines.find((l) => l.method === 'tools/call' && l.name === 'fetch_page');
    const sanitize = fetch?.decisions.find((d) => d.interceptor === 'guard.sanitize');
    assert.equal(sanitize?.outcome, 'change');
    assert.equal(sanitize?.detail?.injection, true);
    for (const marker of ['hidden-unicode/tag-block', 'hidden-unicode/ansi-concealment', 'instruction-tag/frame-break', 'override/ignore-instructions']) {
      assert.ok(sanitize?.detail?.markers?.includes(marker), `${marker} in ${JSON.stringify(sanitize?.detail)}`);
    }
    // Not anywhere in the database files (the main file and its write-ahead log), nor in the export.
    assert.ok(!exported.stdout.includes(LEAKED_TOKEN));
    for (const file of ['audit.db', 'audit.db-wal']) {
      const bytes = await readFile(join(config.dir, '.switchboard', file)).catch(() => Buffer.alloc(0));
      assert.ok(!bytes.includes(LEAKED_TOKEN), `${file} holds the token`);
    }
  });

  it('token in a log line: the server\'s stderr is logged with the token redacted', async () => {
    // The stderr line is relayed asynchronously: wait until the gateway logged it.
    for (let i = 0; i < 200 && !gateway.stderr().includes('git push failed'); i++) await new Promise((r) => setImmediate(r));
    const stderr = gateway.stderr();
    assert.match(stderr, /git push failed: remote: Invalid username or password for https:\/\/deploy:\[REDACTED:github-pat\]@github\.com/u);
    assert.ok(!stderr.includes(LEAKED_TOKEN));
  });
});
