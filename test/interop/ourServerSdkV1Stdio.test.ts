// Interop: the official SDK v1 client (@modelcontextprotocol/sdk 1.32, Client +
// StdioClientTransport) spawns OUR everything server (`switchboard everything --stdio`) and
// drives all of it on 2025-11-25: every tool, resource, template and prompt, completion,
// logging/setLevel, progress, resources/subscribe and list_changed. One server per client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { legacyNotificationChecks, missingCapabilityChecks } from './fixtures/ourServerChecks.js';
import { makeV1Client, v1Driver, type V1Setup } from './fixtures/ourServerClients.js';
import { everythingStdioParams, surfaceMatrix, tapWire, toolMatrix } from './fixtures/ourServerHarness.js';

/** The CLI's watched resource changes every 3 s. */
const UPDATE_WAIT_MS = 7000;

async function connect(capabilities: 'all' | 'none' = 'all'): Promise<V1Setup> {
  const setup = makeV1Client({ capabilities });
  const transport = new StdioClientTransport(everythingStdioParams());
  await setup.client.connect(transport, { timeout: 30_000 });
  tapWire(transport, setup.wire);
  return setup;
}

describe('interop: SDK v1 client -> our server, stdio (2025-11-25)', () => {
  let s: V1Setup;
  before(async () => {
    s = await connect();
  });
  after(async () => {
    await s.client.close();
  });

  it('initializes on the latest revision v1 knows', () => {
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
    assert.deepEqual(s.client.getServerCapabilities()?.prompts, { listChanged: true });
    assert.ok(s.client.getServerCapabilities()?.logging !== undefined);
  });
  toolMatrix(it, () => v1Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v1Driver(s.client, s.wire), () => s.log);
  legacyNotificationChecks(
    it,
    () => ({
      driver: v1Driver(s.client, s.wire),
      events: s.events,
      setLoggingLevel: (l) => s.client.setLoggingLevel(l),
      subscribeResource: (p) => s.client.subscribeResource(p),
      unsubscribeResource: (p) => s.client.unsubscribeResource(p),
    }),
    UPDATE_WAIT_MS,
  );
});

describe('interop: SDK v1 client (no capabilities) -> our server, stdio', () => {
  let s: V1Setup;
  before(async () => {
    s = await connect('none');
  });
  after(async () => {
    await s.client.close();
  });
  missingCapabilityChecks(it, () => v1Driver(s.client, s.wire));
});
