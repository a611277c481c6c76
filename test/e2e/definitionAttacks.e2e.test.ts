// Definitions read whole (issue #32, "Definitions: read every string, at any depth"), end to end:
// the real `switchboard gateway` process, the official SDK v1 client, and a stdio server that
// serves a poisoned definition per attack (each tool named after it) and logs every request it
// receives. Judged by that log (a blocked tool's call, a poisoned resource's read, a poisoned
// prompt's get never reached the server; the honest ones did) and by what reached the client
// (the list, the instructions), never by what the gateway says about itself.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { refusalText } from '../fixtures/refusal.js';
import { openAttackGateway, type AttackGateway } from './attackSupport.js';
import { HONEST_RESOURCE, OVERRIDE, POISONED_RESOURCES, POISONED_TOOLS } from './fixtures/attackPayloads.js';

const TIMEOUT = { timeout: 90_000 };

describe('e2e: definition poisoning through the real gateway, every field at any depth (issue #32)', () => {
  let open: AttackGateway | undefined;
  let client: Client | undefined;
  const reached = (): ReturnType<AttackGateway['reached']> => (open as AttackGateway).reached();

  before(async () => {
    open = await openAttackGateway();
    client = open.client;
  }, TIMEOUT);

  after(async () => open?.close(), TIMEOUT);

  it('control: the honest tool, resource and prompt are listed and reach the server', TIMEOUT, async () => {
    const c = client as Client;
    assert.ok((await c.listTools()).tools.some((t) => t.name === 'weather'));
    assert.ok((await c.listResources()).resources.some((r) => r.uri === HONEST_RESOURCE));
    assert.ok((await c.listPrompts()).prompts.some((p) => p.name === 'greet'));
    const answer = (await c.callTool({ name: 'weather', arguments: { city: 'Oslo' } })) as { content: { text?: string }[] };
    assert.equal(answer.content[0]?.text, 'Sunny in Oslo');
    await c.readResource({ uri: HONEST_RESOURCE });
    await c.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    const log = await reached();
    assert.ok(log.some((r) => r.method === 'tools/call' && r.name === 'weather'));
    assert.ok(log.some((r) => r.method === 'resources/read' && r.uri === HONEST_RESOURCE));
    assert.ok(log.some((r) => r.method === 'prompts/get' && r.name === 'greet'));
  });

  // One case per field a shallow scanner skipped: the tool is not listed, and a call by its name
  // (an agent that knows it) is refused by the scanner before it reaches the server.
  for (const attack of Object.keys(POISONED_TOOLS)) {
    it(`definition poisoning in ${attack.replace(/^def_/, '').replace(/_/g, ' ')}: the tool is hidden and its call never reaches the server`, TIMEOUT, async () => {
      const c = client as Client;
      const listed = (await c.listTools()).tools.map((t) => t.name);
      assert.ok(listed.includes('weather'), 'the honest tool is listed');
      assert.ok(!listed.includes(attack), `${attack} is hidden: ${listed.join(', ')}`);
      const refusal = await refusalText(c.callTool({ name: attack, arguments: {} }));
      assert.match(refusal, /scanner/u, 'refused by the scanner, with a reason (not "Unknown tool")');
      // The honest call after it: the server logs in arrival order, so the refused call would be on disk had it arrived.
      await c.callTool({ name: 'weather', arguments: { city: 'Bergen' } });
      assert.deepEqual((await reached()).filter((r) => r.name === attack), [], `${attack} never reached the server`);
    });
  }

  for (const [uri, { name }] of Object.entries(POISONED_RESOURCES)) {
    it(`resource poisoning in ${String(name).replace(/^res_/, '').replace(/_/g, ' ')}: the resource is hidden and its read never reaches the server`, TIMEOUT, async () => {
      const c = client as Client;
      const listed = (await c.listResources()).resources.map((r) => r.uri);
      assert.ok(listed.includes(HONEST_RESOURCE), 'the honest resource is listed');
      assert.ok(!listed.includes(uri), `${uri} is hidden: ${listed.join(', ')}`);
      await refusalText(c.readResource({ uri }));
      await c.readResource({ uri: HONEST_RESOURCE });
      assert.deepEqual((await reached()).filter((r) => r.uri === uri), [], `${uri} never reached the server`);
    });
  }

  it('resource template poisoning in its description: the template is not listed', TIMEOUT, async () => {
    const listed = (await (client as Client).listResourceTemplates()).resourceTemplates.map((t) => t.name);
    assert.ok(!listed.includes('res_template_description'), listed.join(', '));
  });

  it('prompt poisoning in an argument description: the prompt is hidden and its get never reaches the server', TIMEOUT, async () => {
    const c = client as Client;
    const listed = (await c.listPrompts()).prompts.map((p) => p.name);
    assert.ok(listed.includes('greet'));
    assert.ok(!listed.includes('prompt_argument_description'), listed.join(', '));
    await refusalText(c.getPrompt({ name: 'prompt_argument_description', arguments: { who: 'Ada' } }));
    await c.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    assert.deepEqual((await reached()).filter((r) => r.name === 'prompt_argument_description'), []);
  });

  it('server instructions poisoning: the downstream server’s instructions never reach the client', TIMEOUT, async () => {
    // The fixture server's instructions carry the override; the gateway answers initialize with its own.
    assert.ok(!(client as Client).getInstructions()?.includes(OVERRIDE), (client as Client).getInstructions());
    assert.ok(!JSON.stringify((await (client as Client).listTools()).tools).includes(OVERRIDE), 'nor through any listed tool');
  });
});

describe('e2e: a definition nested past every reading limit is never passed unread (issue #32)', () => {
  let open: AttackGateway | undefined;

  before(async () => {
    // The unreadable list is never answered as far as the gateway can tell: a short timeout keeps the test short.
    open = await openAttackGateway({ servers: { attacks: { timeoutMs: 2000, startTimeoutMs: 3000 } } }, { ATTACK_DEEP: '1' });
  }, TIMEOUT);

  after(async () => open?.close(), TIMEOUT);

  it('definition poisoning nested 70 deep (past the 64-level cap): the tool is not listed and its call never reaches the server', TIMEOUT, async () => {
    const { client: c, reached } = open as AttackGateway;
    const listed = (await c.listTools()).tools.map((t) => t.name);
    assert.ok(!listed.includes('def_nested_past_cap'), listed.join(', '));
    await refusalText(c.callTool({ name: 'def_nested_past_cap', arguments: {} }));
    const log = await reached();
    assert.ok(log.some((r) => r.method === 'tools/list'), 'the server was asked for its tools (and its answer could not be read whole)');
    assert.deepEqual(log.filter((r) => r.method === 'tools/call'), [], 'no call reached the server');
  });
});
