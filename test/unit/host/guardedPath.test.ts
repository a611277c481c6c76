// One guarded path (issue #30): every request an upstream client sends through the gateway
// passes the host's interceptor chain with the caller's scope and leaves one audit record with
// its principal. Each test is named after a seam the issue found, and is judged by what reached
// the downstream servers (their own call logs) and by what the audit reader holds.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
// https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { auditInterceptor, type AuditRecord } from '../../../src/host/audit.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../../src/host/gateway.js';
import { Host, type HostChange } from '../../../src/host/host.js';
import { PinTrust } from '../../../src/host/pins/pinTrust.js';
import { MemoryPinStore } from '../../../src/host/pins/pinStore.js';
import { policyInterceptor } from '../../../src/host/policy/policyEngine.js';
import type { PolicyRule } from '../../../src/host/policy/rules.js';
import { Scanner } from '../../../src/host/scanner/scanner.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { poisonedTool } from '../../fixtures/attacks/poisonedTool.js';
import { spec } from './pins/support.js';
import { memoryServers } from './support/memoryServers.js';
import { refusalText } from '../../fixtures/refusal.js';

const TIMEOUT = { timeout: 20_000 };
const SECRET_URI = 'file:///secret.txt';
const NOTES_URI = 'file:///notes.txt';
/** Denies `delete_file` to alice only; its reason is the default one, which names the rule. */
const NO_DELETE: PolicyRule = { id: 'no-delete', when: "tool.name == 'delete_file' && principal.id == 'alice'", outcome: 'deny' };
/** Denies the secret file (the resource's URI is `tool.name` to a rule) to everyone, on every method. */
const NO_SECRET: PolicyRule = { id: 'no-secret-file', when: `tool.name == '${SECRET_URI}'`, outcome: 'deny' };

const WEATHER = { description: 'Gets the weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } as const;
/** An honest but changed text: only the pins see it (a rug pull the scanner has nothing to say about). */
const WEATHER_CHANGED = { ...WEATHER, description: 'Gets the weather for a city, in degrees Celsius.' } as const;

interface Rig {
  readonly host: Host;
  /** What reached the downstream servers, in order: `<server> <method> <name or uri>`. */
  readonly reached: string[];
  /** An upstream client of the gateway, authenticated as `principal`. */
  connect(principal: string): Promise<McpClient>;
  /** Changes `weather`'s description on its live server (list_changed) and resolves once the host rebuilt its registry. */
  rugPull(): Promise<void>;
  /** The audit records of client requests, oldest first. */
  requests(): Promise<AuditRecord[]>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/**
 * The gateway as `switchboard gateway` assembles it (audit, pins, scanner, policy; the scanner also as
 * the gateway's list filter) over three in-memory servers: `files` (read_file, delete_file, two
 * resources), `weather` (weather) and `calculator` (a poisoned `sum`, a clean `difference`).
 */
async function rig(rules: readonly PolicyRule[] = []): Promise<Rig> {
  const reached: string[] = [];
  let weather: { server: McpServer; handle: { remove(): void } } | undefined;
  const servers = memoryServers((id) => {
    // Stateful, so a subscription reaches it as `resources/subscribe <uri>` (its log's own words).
    const server = new McpServer({ name: id, version: '1.0.0' }, { versions: ['2025-11-25'] });
    server.use((ctx, next) => {
      const target = ctx.params['name'] ?? ctx.params['uri'];
      reached.push(`${id} ${ctx.method}${typeof target === 'string' ? ` ${target}` : ''}`);
      return next();
    });
    if (id === 'files') {
      server.tool('read_file', { description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }, () => 'contents');
      server.tool('delete_file', { description: 'Deletes a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }, () => 'deleted');
      for (const uri of [NOTES_URI, SECRET_URI]) server.resource(uri, { name: uri.slice(8), mimeType: 'text/plain' }, (u) => [{ uri: u, mimeType: 'text/plain', text: 'text' }]);
    } else if (id === 'weather') {
      weather = { server, handle: server.tool('weather', WEATHER, () => 'Sunny') };
    } else {
      for (const tool of poisonedTool.tools) server.forwardTool(tool as unknown as Tool, () => Promise.resolve({ content: [{ type: 'text' as const, text: 'reached' }] }));
    }
    return server;
  });
  const audit = SqliteAuditLog.open(':memory:');
  const pins = await PinTrust.open({ store: new MemoryPinStore() });
  const scanner = new Scanner({ modeOf: () => 'block' });
  const host = await Host.open({
    servers: [spec('files'), spec('weather'), spec('calculator')],
    transport: servers.factory,
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    trust: pins,
    interceptors: [auditInterceptor(audit), pins.interceptor(), scanner.interceptor, policyInterceptor({ rules, canAsk: false })],
  });
  await host.start();
  const gateway = new Gateway(host);
  open.push(async () => {
    await gateway.close();
    await host.close();
    await audit.close();
  });
  return {
    host,
    reached,
    async connect(principal) {
      const [clientSide, serverSide] = createInMemoryPair({ principal: { id: principal } });
      await gateway.server.connect(serverSide);
      const client = new McpClient({ name: principal, version: '1.0.0' }, { versions: ['2025-11-25'], defaultTimeoutMs: 5_000 });
      await client.connect(clientSide);
      open.push(() => client.close());
      return client;
    },
    async rugPull() {
      const live = weather as NonNullable<typeof weather>;
      const rebuilt = new Promise<void>((resolve) => {
        const stop = host.onChange((change: HostChange) => {
          if (change === 'withheld') {
            stop();
            resolve();
          }
        });
      });
      await live.server.batchChanges(() => {
        live.handle.remove();
        live.handle = live.server.tool('weather', WEATHER_CHANGED, () => 'Sunny');
      });
      await rebuilt;
    },
    requests: async () => (await audit.read()).filter((r) => r.kind === 'request'),
  };
}

/** Records of `method` (and `name`, when given). */
const of = (records: readonly AuditRecord[], method: string, name?: string): AuditRecord[] => records.filter((r) => r.method === method && (name === undefined || r.name === name));

describe('host: one guarded path through the gateway', () => {
  it('two registries: a tool a rule denies is not listed by the gateway', TIMEOUT, async () => {
    const r = await rig([NO_DELETE]);
    const alice = await r.connect('alice');
    const bob = await r.connect('bob');
    const aliceTools = (await alice.listTools()).map((t) => t.name);
    assert.ok(aliceTools.includes('read_file'), `alice lists read_file: ${aliceTools.join(', ')}`);
    assert.ok(!aliceTools.includes('delete_file'), `the rule no-delete hides delete_file from alice, yet the gateway listed: ${aliceTools.join(', ')}`);
    const bobTools = (await bob.listTools()).map((t) => t.name);
    assert.ok(bobTools.includes('delete_file'), `the rule is alice's only: bob still lists delete_file (${bobTools.join(', ')})`);

    const text = await refusalText(alice.callTool('delete_file', { path: 'a.txt' }));
    assert.match(text, /no-delete/, 'the refusal names the rule');
    assert.ok(!r.reached.includes('files tools/call delete_file'), 'alice’s call never reached the server');
    assert.equal(await bob.callTool('delete_file', { path: 'b.txt' }).then((x) => x.isError), undefined, 'bob’s call goes through');
    assert.ok(r.reached.includes('files tools/call delete_file'), 'bob’s call reached the server (its log sees calls)');
    assert.deepEqual(
      of(await r.requests(), 'tools/call', 'delete_file').map((x) => [x.principal, x.outcome]),
      [
        ['alice', 'denied'],
        ['bob', 'ok'],
      ],
    );
  });

  it('a quarantined tool’s call leaves an audit record', TIMEOUT, async () => {
    const r = await rig();
    const alice = await r.connect('alice');
    await alice.callTool('weather', { city: 'Oslo' });
    await r.rugPull();
    const text = await refusalText(alice.callTool('weather', { city: 'Oslo' }));
    assert.match(text, /weather/, 'the refusal names the tool');
    assert.match(text, /switchboard pins (diff|approve)/, 'the refusal names the review command');
    assert.equal(r.reached.filter((x) => x === 'weather tools/call weather').length, 1, 'only the call before the rug pull reached the server');
    const records = of(await r.requests(), 'tools/call', 'weather');
    assert.deepEqual(
      records.map((x) => [x.principal, x.outcome]),
      [
        ['alice', 'ok'],
        ['alice', 'denied'],
      ],
      'the refused call has its audit record',
    );
  });

  it('a scanner-blocked tool is not answered "Unknown tool"', TIMEOUT, async () => {
    const r = await rig();
    const alice = await r.connect('alice');
    const names = (await alice.listTools()).map((t) => t.name);
    assert.ok(names.includes('difference') && !names.includes('sum'), `the poisoned sum is hidden: ${names.join(', ')}`);
    const text = await refusalText(alice.callTool('sum', { x: 1, y: 2 }));
    assert.doesNotMatch(text, /Unknown tool/, 'a tool that exists is refused with the reason, not as unknown');
    assert.match(text, /poisoning scanner|trust\.scanner/, 'the scanner’s reason reaches the caller');
    assert.ok(!r.reached.includes('calculator tools/call sum'), 'the call never reached the server');
    await alice.callTool('difference', { x: 3, y: 1 });
    assert.ok(r.reached.includes('calculator tools/call difference'), 'the clean tool of the same server is reached (its log sees calls)');
    const records = of(await r.requests(), 'tools/call', 'sum');
    assert.deepEqual(
      records.map((x) => [x.principal, x.outcome]),
      [['alice', 'denied']],
      'the refusal is recorded',
    );
  });

  it('list requests are recorded', TIMEOUT, async () => {
    const r = await rig();
    const alice = await r.connect('alice');
    await alice.listTools();
    await alice.listPrompts();
    await alice.listResources();
    await alice.listResourceTemplates();
    const records = await r.requests();
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      assert.deepEqual(
        of(records, method).map((x) => [x.principal, x.outcome]),
        [['alice', 'ok']],
        `one record of ${method}, with its principal`,
      );
    }
  });

  it('an unknown tool’s call is recorded', TIMEOUT, async () => {
    const r = await rig();
    const alice = await r.connect('alice');
    assert.match(await refusalText(alice.callTool('no_such_tool', {})), /Unknown tool/);
    const records = of(await r.requests(), 'tools/call', 'no_such_tool');
    assert.equal(records.length, 1, `one audit record of the call (got ${records.length})`);
    assert.equal(records[0]?.principal, 'alice');
    assert.notEqual(records[0]?.outcome, 'ok');
  });

  it('resources/subscribe passes the chain', TIMEOUT, async () => {
    const r = await rig([NO_SECRET]);
    const alice = await r.connect('alice');
    await assert.rejects(alice.subscribeResource(SECRET_URI), /no-secret-file/, 'the rule denying the resource refuses its subscribe, naming the rule');
    assert.ok(!r.reached.includes(`files resources/subscribe ${SECRET_URI}`), 'the subscribe never reached the server');
    assert.equal(r.host.server('files')?.subscriptions.has(SECRET_URI), false);
    await alice.subscribeResource(NOTES_URI);
    assert.ok(r.reached.includes(`files resources/subscribe ${NOTES_URI}`), 'an allowed subscribe reaches the server (its log sees subscribes)');
    await alice.unsubscribeResource(NOTES_URI);
    const records = await r.requests();
    assert.deepEqual(
      of(records, 'resources/subscribe').map((x) => [x.name, x.principal, x.outcome]),
      [
        [SECRET_URI, 'alice', 'denied'],
        [NOTES_URI, 'alice', 'ok'],
      ],
    );
    assert.deepEqual(
      of(records, 'resources/unsubscribe').map((x) => [x.name, x.principal]),
      [[NOTES_URI, 'alice']],
    );
  });

  it('a ping and logging/setLevel are recorded', TIMEOUT, async () => {
    const r = await rig();
    const alice = await r.connect('alice');
    await alice.ping();
    await alice.setLoggingLevel('info');
    const records = await r.requests();
    for (const method of ['ping', 'logging/setLevel']) {
      assert.deepEqual(
        of(records, method).map((x) => [x.principal, x.outcome]),
        [['alice', 'ok']],
        `one record of ${method}, with its principal`,
      );
    }
  });
});
