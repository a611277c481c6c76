// E2E through the real `switchboard gateway` process: calls the config marks for consent wait
// in the queue; a person answers through the admin HTTP API or `switchboard consent`. Issue #13
// scenario 4 (an approval for one call does not approve the same tool with other arguments)
// and scenario 3 (the agent tries to approve its own pending call, or a pin change, through
// any MCP path: refused).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { consentEvents } from './fixtures/consentEvents.js';
import { MAIN, everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

let config: GatewayConfig;
let gateway: RunningGateway;
let admin: string;
let base: string;

before(async () => {
  config = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never', consent: { providers: ['queue'], ask: ['everything/echo'], timeoutMs: 60_000 } });
  gateway = await startGateway(config);
  admin = (await readFile(join(config.dir, '.switchboard', 'admin-token'), 'utf8')).trim();
  base = (await readFile(join(config.dir, '.switchboard', 'consent-url'), 'utf8')).trim();
});

after(async () => {
  await gateway.stop();
  await config.remove();
});

const connect = async (elicited?: () => void): Promise<McpClient> => {
  const client = new McpClient(
    { name: 'agent', version: '1' },
    { era: 'stateful', handlers: { elicitation: () => (elicited?.(), { action: 'accept', content: { approve: true } }) } },
  );
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
  return client;
};
const api = (path: string, init: { method?: string; token?: string; origin?: string; body?: unknown } = {}): Promise<Response> =>
  fetch(new URL(path, base), {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== undefined ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.origin !== undefined ? { origin: init.origin } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
const cli = (...args: string[]) => run(process.execPath, [MAIN, 'consent', ...args, '--config', config.file], { cwd: config.dir });

describe('e2e: consent in the gateway', () => {
  it('scenario 4: an approval for one call does not approve the same tool with other arguments', async () => {
    const client = await connect();
    const events = await consentEvents(base, admin);
    try {
      const first = client.callTool('echo', { message: 'lunch at noon, to bob' });
      const asked = await events.next();
      assert.equal(asked.tool, 'echo');
      assert.deepEqual(asked.arguments, { message: 'lunch at noon, to bob' });
      assert.match(asked.reasons.join(' '), /every call of everything\/echo/);
      const listed = await cli('list');
      assert.match(listed.stdout, new RegExp(`Consent request ${asked.id}`));
      assert.match(listed.stdout, /"message": "lunch at noon, to bob"/);
      const approved = await cli('approve', asked.id);
      assert.match(approved.stdout, /approved .* \(this exact call, once\)/);
      assert.equal(text(await first), 'lunch at noon, to bob');

      const second = client.callTool('echo', { message: 'the private key, to eve' });
      const again = await events.next();
      assert.notEqual(again.id, asked.id, 'the same tool with other arguments is asked again');
      assert.deepEqual(again.arguments, { message: 'the private key, to eve' });
      const denied = await api(`consent/requests/${again.id}/deny`, { method: 'POST', token: admin, body: { reason: 'not to eve' } });
      assert.equal(denied.status, 200);
      const refused = await second;
      assert.equal(refused.isError, true);
      assert.match(text(refused), /Denied by consent: admin-token did not approve echo on server everything: not to eve/);

      // The same arguments as the approved call: approved once, so asked again too.
      const third = client.callTool('echo', { message: 'lunch at noon, to bob' });
      const once = await events.next();
      assert.deepEqual(once.arguments, { message: 'lunch at noon, to bob' });
      await cli('deny', once.id);
      assert.equal((await third).isError, true);

      const tail = await run(process.execPath, [MAIN, 'audit', 'tail', '-n', '12', '--config', config.file], { cwd: config.dir });
      assert.match(tail.stdout, /^#\d+ \S+ approval tools\/call everything echo by default -> ok .*\[consent:allow\]$/m, 'the approval is its own record');
      assert.match(tail.stdout, /^#\d+ \S+ tools\/call everything echo by default -> ok .*\[(?:[^\]]*, )?consent:ask, consent:allow\]$/m, 'the call carries the consent decision');
      assert.match(tail.stdout, /^#\d+ \S+ approval tools\/call everything echo by default -> denied \(not to eve\)/m);
    } finally {
      events.close();
      await client.close();
    }
  });

  it('scenario 3: the agent tries to approve its own pending call or a pin change through any MCP path: refused', async () => {
    let elicited = 0;
    const client = await connect(() => elicited++);
    const events = await consentEvents(base, admin);
    try {
      // No tool, prompt, resource or template of the gateway approves anything.
      const names = [
        ...(await client.listTools({ fresh: true })).map((t) => t.name),
        ...(await client.listPrompts()).map((p) => p.name),
        ...(await client.listResources()).map((r) => r.uri),
        ...(await client.listResourceTemplates()).map((t) => t.uriTemplate),
      ];
      assert.deepEqual(names.filter((n) => /approv|consent|grant|pins?\b/i.test(n)), []);

      const pending = client.callTool('echo', { message: 'exfiltrate' });
      const request = await events.next();

      // Guessing (here: knowing) the approval id and calling a method for it: no such method.
      for (const method of ['consent/approve', 'consent/answer', 'pins/approve', 'policy/set', 'switchboard/approve']) {
        await assert.rejects(client.request(method, { id: request.id, server: 'everything', scope: { match: 'tool', duration: 'session' } }), (e: unknown) => e instanceof JsonRpcError && e.code === -32601, method);
      }
      // Through a tool: none exists.
      await assert.rejects(client.callTool('consent_approve', { id: request.id }), /Unknown tool: consent_approve/);
      // The MCP bearer token on the consent API: refused.
      const withMcp = await api(`consent/requests/${request.id}/approve`, { method: 'POST', token: gateway.token, body: {} });
      assert.equal(withMcp.status, 403);
      assert.match(((await withMcp.json()) as { error: string }).error, /MCP bearer token/);
      assert.equal((await api('consent/requests', { token: gateway.token })).status, 403);
      assert.equal((await api(`consent/requests/${request.id}/approve`, { method: 'POST', body: {} })).status, 401);
      // A web page the person visits tries it with the admin token's help (cross-origin POST): refused.
      assert.equal((await api(`consent/requests/${request.id}/approve`, { method: 'POST', token: admin, origin: 'https://evil.example', body: {} })).status, 403);
      // The agent's client would approve through elicitation, but elicitation is not configured: never asked.
      assert.equal(elicited, 0);

      const still = (await (await api('consent/requests', { token: admin })).json()) as { requests: { id: string }[] };
      assert.deepEqual(still.requests.map((r) => r.id), [request.id], 'the request still waits for a person');
      await cli('deny', request.id, '--reason', 'nice try');
      const refused = await pending;
      assert.equal(refused.isError, true);
      assert.match(text(refused), /nice try/);
    } finally {
      events.close();
      await client.close();
    }
  });

  it('a widened approval (this tool, this session) covers other arguments in that session only', async () => {
    const client = await connect();
    const other = await connect();
    const events = await consentEvents(base, admin);
    try {
      const first = client.callTool('echo', { message: 'one' });
      const asked = await events.next();
      await cli('approve', asked.id, '--tool', '--session');
      assert.equal(text(await first), 'one');
      assert.equal(text(await client.callTool('echo', { message: 'two' })), 'two', 'covered: same session, other arguments');
      const elsewhere = other.callTool('echo', { message: 'two' });
      const fresh = await events.next();
      assert.deepEqual(fresh.arguments, { message: 'two' }, 'another session is asked');
      await cli('deny', fresh.id);
      assert.equal((await elsewhere).isError, true);
    } finally {
      events.close();
      await client.close();
      await other.close();
    }
  });
});
