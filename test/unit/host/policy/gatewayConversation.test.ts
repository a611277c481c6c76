// The gateway passes a 2026-07-28 client's `_meta["io.switchboard/conversation"]` to the chain,
// and policy decisions through the real Host and Gateway (in memory) see taint across it.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { McpClient } from '../../../../src/client/mcpClient.js';
import { GATEWAY_CLIENT_CAPABILITIES } from '../../../../src/host/gateway.js';
import { Host } from '../../../../src/host/host.js';
import type { Interceptor } from '../../../../src/host/interceptors.js';
import { policyInterceptor } from '../../../../src/host/policy/policyEngine.js';
import { CONVERSATION_META_KEY } from '../../../../src/host/policy/taint.js';
import { throughGateway } from '../support/gatewayRig.js';
import { trifectaServer } from '../../../fixtures/attacks/trifectaServers.js';
import { memoryServers, memorySpec } from '../support/memoryServers.js';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function rig(): Promise<{ client: McpClient; seen: (string | undefined)[] }> {
  const seen: (string | undefined)[] = [];
  const probe: Interceptor = { id: 'probe', phase: 'guard', methods: ['tools/call'], intercept: (ctx, next) => (seen.push(ctx.conversation), next()) };
  const policy = policyInterceptor({ canAsk: false, labels: { notes: { labels: ['private-data'], toolLabels: {} }, web: { labels: ['untrusted-content'], toolLabels: {} }, chat: { labels: ['egress'], toolLabels: {} } } });
  const servers = memoryServers((id) => trifectaServer(id));
  const host = await Host.open({ servers: [memorySpec('notes'), memorySpec('web'), memorySpec('chat')], transport: servers.factory, capabilities: GATEWAY_CLIENT_CAPABILITIES, interceptors: [policy, probe] });
  await host.start();
  const client = new McpClient({ name: 'up', version: '1.0.0' }, { versions: ['2026-07-28'], defaultTimeoutMs: 5000 });
  open.push((await throughGateway(host, client)).close);
  return { client, seen };
}

const call = (client: McpClient, name: string, conversation?: string) =>
  client.request('tools/call', { name, arguments: {}, ...(conversation !== undefined ? { _meta: { [CONVERSATION_META_KEY]: conversation } } : {}) });

describe('host/policy through the gateway: conversation ids (2026-07-28)', () => {
  it('the conversation id a client carries in _meta reaches the chain; a malformed one is ignored', async () => {
    const { client, seen } = await rig();
    await call(client, 'read_note', 'conv-1');
    await call(client, 'read_note');
    await client.request('tools/call', { name: 'read_note', arguments: {}, _meta: { [CONVERSATION_META_KEY]: 'x'.repeat(500) } });
    assert.deepEqual(seen, ['conv-1', undefined, undefined]);
  });

  it('agent switches conversation id between the legs and the send: still denied, never reaches chat', async () => {
    const { client, seen } = await rig();
    await call(client, 'read_note', 'conv-1');
    await call(client, 'fetch', 'conv-1');
    const send = (await call(client, 'send_message', 'conv-2')) as { isError?: boolean; content: { text: string }[] };
    assert.equal(send.isError, true);
    assert.match(send.content[0]?.text ?? '', /lethal trifecta/);
    assert.equal(seen.length, 2);
  });
});
