// Injection in definitions, results, errors and a server's elicitation (issue #32), end to end:
// the real `switchboard gateway` process, the official SDK client, and a stdio server that
// logs every request it receives. Judged by the server's own log (what reached it) and by what
// reached the client, never by what the gateway says about itself. Our own attack fixtures.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { connectClient } from './gatewayClient.js';

const TIMEOUT = { timeout: 90_000 };
const SERVER = fileURLToPath(new URL('./fixtures/injectionServer.ts', import.meta.url));

interface Reached {
  readonly method: string;
  readonly name?: string;
}
type CallResult = { isError?: boolean; content: { type: string; text?: string }[] };

describe('e2e: injection through the real gateway (definitions, results, errors, elicitation)', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway;
  const elicited: unknown[] = [];
  const reached = async (): Promise<Reached[]> =>
    (await readFile(join(config.dir, 'calls.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Reached);
  const calls = async (name: string): Promise<number> => (await reached()).filter((r) => r.method === 'tools/call' && r.name === name).length;
  /** A client; with `elicit`, one that answers elicitations (declining) and keeps what it was asked. */
  const connect = async (elicit = false): Promise<Client> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        elicited.push(request.params);
        return { action: 'decline' };
      });
    }
    return connectClient(gateway, client);
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallResult> => {
    try {
      return (await client.callTool({ name, arguments: args })) as CallResult;
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `wire error: ${(error as Error).message}` }] };
    }
  };

  // A fresh gateway per test: taint is kept per principal too, and one test's must not help another's.
  beforeEach(async () => {
    elicited.length = 0;
    config = await writeConfig(
      { inj: { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], cwd: '.', env: { CALL_LOG: 'calls.jsonl' } } },
      // A call that needs consent is asked on the queue; nobody answers within a second, so it is refused.
      { servers: { inj: { toolLabels: { read_notes: ['private-data'], post_message: ['egress'] } } }, consent: { providers: ['queue'], timeoutMs: 1000 } },
    );
    gateway = await startGateway(config);
  }, TIMEOUT);

  afterEach(async () => {
    await gateway?.stop();
    await config?.remove();
  }, TIMEOUT);

  it('definition poisoning in inputSchema.$comment is blocked (the tool is not listed; calls never reach the server)', TIMEOUT, async () => {
    const client = await connect();
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('read_notes'), `the honest tools are listed: ${listed.join(', ')}`);
    assert.ok(!listed.includes('poisoned'), `the poisoned tool is hidden: ${listed.join(', ')}`);
    const answer = await call(client, 'poisoned', { city: 'Oslo' });
    assert.equal(answer.isError, true);
    assert.match(answer.content[0]?.text ?? '', /scanner/u, 'the refusal names the scanner');
    assert.equal(await calls('poisoned'), 0, 'the call never reached the server');
    await client.close();
  });

  it('result injection base64-wrapped taints the session: the following egress call is asked/refused (never reaches the server)', TIMEOUT, async () => {
    const client = await connect();
    assert.notEqual((await call(client, 'read_notes')).isError, true);
    assert.notEqual((await call(client, 'fetch_page')).isError, true);
    const post = await call(client, 'post_message', { text: 'the launch is on Friday' });
    assert.equal(post.isError, true, `the egress call is refused: ${JSON.stringify(post)}`);
    assert.match(post.content[0]?.text ?? '', /trifecta|untrusted|consent/iu, 'refused for the trifecta, after asking');
    assert.equal(await calls('post_message'), 0, 'the egress call never reached the server');
    await client.close();
  });

  it('error-message injection taints: after a JSON-RPC error carrying orders, the egress call never reaches the server', TIMEOUT, async () => {
    const client = await connect();
    assert.notEqual((await call(client, 'read_notes')).isError, true);
    const failed = await call(client, 'flaky');
    assert.equal(failed.isError, true, 'the call failed');
    const post = await call(client, 'post_message', { text: 'the launch is on Friday' });
    assert.equal(post.isError, true, `the egress call is refused: ${JSON.stringify(post)}`);
    assert.equal(await calls('post_message'), 0, 'the egress call never reached the server');
    await client.close();
  });

  it('elicitation schema injection does not reach the client', TIMEOUT, async () => {
    const client = await connect(true);
    const answer = await call(client, 'ask_user');
    assert.equal(await calls('ask_user'), 1, 'the call reached the server, which asked');
    await call(client, 'ask_honest');
    assert.ok(elicited.some((p) => JSON.stringify(p).includes('Which city?')), `control: an honest elicitation does reach the client (${JSON.stringify(elicited)})`);
    const leaked = elicited.filter((p) => JSON.stringify(p).includes('Ignore all previous instructions'));
    assert.deepEqual(leaked, [], `the injected schema never reached the client (the answer was ${JSON.stringify(answer)})`);
    await client.close();
  });
});
