// Value taint on the answers a client gives to a server's own requests (issue #32), end to end: the
// real `switchboard gateway` process, the official SDK v1 client, and two stdio servers that log
// every request they receive and every answer they get back. The session reads a secret from
// `vault`; then `asker`'s tool asks the client by elicitation (and, separately, asks its model by
// sampling), and the client's answer carries the secret (verbatim, or encoded). Judged by the
// asking server's own log: the answer never reached it with the secret; a benign answer did.
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling#security-considerations
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { closeScenario, connectClient } from './gatewayClient.js';

const TIMEOUT = { timeout: 60_000 };
const SERVER = fileURLToPath(new URL('./fixtures/callLogServer.ts', import.meta.url));
/** What `read_secret` returns (the fixture's default test key). */
const SECRET = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
const BASE64 = Buffer.from(SECRET, 'utf8').toString('base64');
const HEX = Array.from(new TextEncoder().encode(SECRET), (b) => b.toString(16).padStart(2, '0')).join(':');
const entry = (log: string, tools: string) => ({ command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], cwd: '.', env: { CALL_LOG: log, FIXTURE_TOOLS: tools } });

/** One answer line of the asking server's log: what it received for its own request, or the error it got in its place. */
interface Received {
  readonly method: string;
  readonly name?: string;
  readonly answer?: unknown;
  readonly error?: string;
}

/** The two ways a client answers a server: the tool that asks, an encoded form of the secret, a benign answer, the tool's text when answered, and the answer's text as the server received it. */
const CHANNELS = [
  {
    what: 'an elicitation answer',
    encoding: 'base64',
    tool: 'ask_user',
    encoded: BASE64,
    benign: 'Customer prefers email; call back on Monday & cc billing@example.com.',
    done: 'answered accept',
    text: (answer: unknown): unknown => ((answer as { action?: string; content?: { note?: unknown } } | undefined)?.action === 'accept' ? (answer as { content?: { note?: unknown } }).content?.note : undefined),
  },
  {
    what: 'a sampling answer',
    encoding: 'colon-separated hex',
    tool: 'ask_model',
    encoded: HEX,
    benign: 'Summary: the customer wants a refund for order 4411 (paid 12.50 EUR).',
    done: 'summarised',
    text: (answer: unknown): unknown => (answer as { content?: { text?: unknown } } | undefined)?.content?.text,
  },
] as const;

/** True when the call failed (an error result, or a JSON-RPC error): what a tool whose question went unanswered does. */
const failed = (call: Promise<unknown>): Promise<boolean> =>
  call.then(
    (r) => (r as { isError?: boolean }).isError === true,
    () => true,
  );

describe("e2e: a secret in the client's answer to another server's elicitation or sampling request never reaches that server (value taint)", () => {
  let config: GatewayConfig;
  let gateway: RunningGateway | undefined;
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  /** What the client answers next: the elicitation form's note, or the model's text. */
  let reply = '';
  /** Everything the asking server logged, as raw text (an encoded secret is looked for in it too). */
  const raw = async (): Promise<string> => readFile(join(config.dir, 'asker.jsonl'), 'utf8').catch(() => '');
  /** The answers the asking server received (or the errors it got instead), in arrival order, for tool `name`. */
  const received = async (name: string): Promise<Received[]> =>
    (await raw())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Received)
      .filter((r) => r.method === 'answer' && r.name === name);

  before(async () => {
    config = await writeConfig(
      { vault: entry('vault.jsonl', 'read_secret'), asker: entry('asker.jsonl', 'ask_user,ask_model') },
      {
        namespacing: 'never',
        // Labels not inferred: this scenario judges value taint alone. With inference both servers are unvetted
        // (untrusted content), so `builtin.server-request` would ask about every elicitation and sampling request
        // and the answer would be judged by that ask, not by the secret in it.
        servers: { vault: { inferLabels: false }, asker: { inferLabels: false } },
      },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { note: reply } }));
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: reply }, model: 'test-model' }));
    gateway = await startGateway(config);
    await connectClient(gateway, client);
    const read = (await client.callTool({ name: 'read_secret', arguments: {} })) as { isError?: boolean; content: { text?: string }[] };
    assert.notEqual(read.isError, true);
    assert.match(read.content[0]?.text ?? '', /sk_test_/, 'the secret entered the session');
  }, TIMEOUT);

  after(() => closeScenario(client, gateway, config), TIMEOUT);

  for (const channel of CHANNELS) {
    it(`secret exfiltration through ${channel.what} (verbatim, and ${channel.encoding}): withheld from the asking server; a benign answer reaches it`, TIMEOUT, async () => {
      for (const leaked of [`${channel.benign} The billing key is ${SECRET}.`, channel.encoded]) {
        reply = leaked;
        assert.ok(await failed(client.callTool({ name: channel.tool, arguments: {} })), `the call failed for want of the withheld answer (${leaked}); the server logged:\n${await raw()}`);
      }
      reply = channel.benign;
      const ok = (await client.callTool({ name: channel.tool, arguments: {} })) as { content: { text?: string }[] };
      assert.equal(ok.content[0]?.text, channel.done);
      // The two leaking answers were withheld (the server got an error in their place, or on 2026-07-28 no next round):
      // the one answer that reached it is the benign one, as the client wrote it.
      const answers = (await received(channel.tool)).filter((a) => a.error === undefined);
      assert.deepEqual(answers.map((a) => channel.text(a.answer)), [channel.benign]);
      const text = await raw();
      assert.ok(!text.includes(SECRET) && !text.includes(channel.encoded), 'no form of the secret is anywhere in what the server received');
    });
  }
});
