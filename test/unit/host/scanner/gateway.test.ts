import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../../../src/client/mcpClient.js';
import { Gateway } from '../../../../src/host/gateway.js';
import { Host } from '../../../../src/host/host.js';
import { Scanner } from '../../../../src/host/scanner/scanner.js';
import { createInMemoryPair } from '../../../../src/transport/memory.js';
import { poisonedTool } from '../../../fixtures/attacks/poisonedTool.js';
import { attackServer, REACHED } from '../../../fixtures/attacks/serve.js';
import { memoryServers, memorySpec } from '../support/memoryServers.js';

describe('host/scanner: the gateway serves what the scanner allows', () => {
  let host: Host;
  let gateway: Gateway;
  let client: McpClient;
  const reached: string[] = [];
  const servers = memoryServers(() => attackServer(poisonedTool, (name) => reached.push(name)));
  before(async () => {
    const scanner = new Scanner();
    host = await Host.open({ servers: [memorySpec('calc')], transport: servers.factory, interceptors: [scanner.interceptor] });
    await host.start();
    gateway = new Gateway(host);
    const [up, down] = createInMemoryPair();
    await gateway.server.connect(down);
    client = new McpClient({ name: 'model', version: '0.0.1' });
    await client.connect(up);
  });
  after(async () => {
    await client.close();
    await gateway.close();
    await host.close();
  });

  it('the poisoned tool is not listed upstream (the model never sees it)', async () => {
    assert.deepEqual((await client.listTools()).map((t) => t.name), ['difference']);
  });

  it('calling the hidden tool by name never reaches the server', async () => {
    const result = await client.callTool('sum', { x: 1, y: 2 }).catch((error: unknown) => ({ error }));
    assert.ok('error' in result || result.isError === true, 'refused');
    assert.ok(!JSON.stringify(result).includes(REACHED));
    assert.deepEqual(reached, []);
  });

  it('a clean tool still works through the gateway', async () => {
    const result = await client.callTool('difference', { x: 3, y: 1 });
    assert.equal((result.content[0] as { text?: string }).text, REACHED);
    assert.deepEqual(reached, ['difference']);
  });
});
