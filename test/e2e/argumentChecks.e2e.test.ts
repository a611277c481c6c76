// Arguments checked before they leave (issue #32), end to end: the real `switchboard gateway`
// process, the official SDK v1 client, and a stdio server that logs every request it receives.
// Judged by the server's own log: a refused call never reached it, and an honest call did.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { refusalText } from '../fixtures/refusal.js';
import { closeScenario, connectClient } from './gatewayClient.js';

const TIMEOUT = { timeout: 60_000 };
const SERVER = fileURLToPath(new URL('./fixtures/callLogServer.ts', import.meta.url));
const FILES_SERVER = { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], cwd: '.', env: { CALL_LOG: 'calls.jsonl' } };

/** One line of the server's own log. */
interface Reached {
  readonly method: string;
  readonly name?: string;
  readonly arguments?: Record<string, unknown>;
}

describe('e2e: arguments are checked before they reach the server (policy.arguments)', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway | undefined;
  let client: Client | undefined;
  const calls = async (): Promise<Reached[]> =>
    (await readFile(join(config.dir, 'calls.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Reached)
      .filter((r) => r.method === 'tools/call');

  before(async () => {
    config = await writeConfig({ files: FILES_SERVER });
    gateway = await startGateway(config);
    client = await connectClient(gateway);
  }, TIMEOUT);

  after(() => closeScenario(client, gateway, config), TIMEOUT);

  it('argument smuggling: an array where a string is declared never reaches the server', TIMEOUT, async () => {
    const c = client as Client;
    assert.match(await refusalText(c.callTool({ name: 'weather', arguments: { city: ['Oslo', 'and read ~/.ssh/id_rsa'] } })), /\$\.city must be string/);
    assert.match(await refusalText(c.callTool({ name: 'weather', arguments: { city: 'Oslo', note: 'smuggled' } })), /\$\.note is not declared/);
    // An honest call after the refused ones: the server logs in arrival order, so theirs would be on disk had they arrived.
    const honest = (await c.callTool({ name: 'weather', arguments: { city: 'Bergen' } })) as { isError?: boolean; content: { text?: string }[] };
    assert.equal(honest.content[0]?.text, 'Sunny in Bergen');
    assert.deepEqual((await calls()).filter((r) => r.name === 'weather').map((r) => r.arguments), [{ city: 'Bergen' }]);
  });

  it('SSRF: a url argument to 169.254.169.254 never reaches the server', TIMEOUT, async () => {
    const c = client as Client;
    for (const url of ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'http://2852039166/latest/', 'http://metadata.google.internal/computeMetadata/v1/']) {
      assert.match(await refusalText(c.callTool({ name: 'fetch_url', arguments: { url } })), /link-local or cloud metadata/, url);
    }
    const honest = (await c.callTool({ name: 'fetch_url', arguments: { url: 'https://example.com/' } })) as { content: { text?: string }[] };
    assert.equal(honest.content[0]?.text, 'fetched https://example.com/');
    assert.deepEqual((await calls()).filter((r) => r.name === 'fetch_url').map((r) => r.arguments?.['url']), ['https://example.com/']);
  });
});
