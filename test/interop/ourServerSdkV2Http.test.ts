// Interop: the official SDK v2 client (@modelcontextprotocol/client 2.4) drives OUR everything
// server over Streamable HTTP — once negotiating 2026-07-28 (versionNegotiation 'auto':
// server/discover, stateless requests, MRTR auto-fulfilled through the client's handlers,
// subscriptions/listen), once on its default 2025-era path ('legacy': initialize, session).
// One in-process server for the whole file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { legacyNotificationChecks, missingCapabilityChecks, modernNotificationChecks } from './fixtures/ourServerChecks.js';
import { makeV2Client, v2Driver, type V2Setup } from './fixtures/ourServerClients.js';
import { startEverythingHttp, surfaceMatrix, tapWire, toolMatrix } from './fixtures/ourServerHarness.js';

let server: Awaited<ReturnType<typeof startEverythingHttp>>;
before(async () => {
  server = await startEverythingHttp(250);
});
after(async () => {
  await server.close();
});

async function connect(mode: 'auto' | 'legacy', capabilities: 'all' | 'none' = 'all'): Promise<V2Setup> {
  const setup = makeV2Client(mode, { capabilities });
  const transport = new StreamableHTTPClientTransport(server.url);
  await setup.client.connect(transport);
  tapWire(transport, setup.wire);
  return setup;
}

describe('interop: SDK v2 client -> our server, Streamable HTTP, 2026-07-28', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('auto');
  });
  after(async () => {
    await s.client.close();
  });

  it('negotiates 2026-07-28 through server/discover', () => {
    assert.equal(s.client.getProtocolEra(), 'modern');
    assert.equal(s.client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
    assert.match(s.client.getInstructions() ?? '', /^switchboard-everything is a test server/);
    const caps = s.client.getServerCapabilities();
    assert.deepEqual(caps?.tools, { listChanged: true });
    assert.deepEqual(caps?.resources, { subscribe: true, listChanged: true });
    assert.ok(caps?.completions !== undefined);
    assert.ok(caps?.extensions?.['io.modelcontextprotocol/tasks'] !== undefined);
  });
  toolMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  modernNotificationChecks(
    it,
    () => ({ driver: v2Driver(s.client, s.wire), events: s.events, setLoggingLevel: (l) => s.client.setLoggingLevel(l), listen: (f) => s.client.listen(f) }),
    2000,
  );
});

describe('interop: SDK v2 client (no capabilities) -> our server, Streamable HTTP, 2026-07-28', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('auto', 'none');
  });
  after(async () => {
    await s.client.close();
  });
  missingCapabilityChecks(it, () => v2Driver(s.client, s.wire));
});

describe('interop: SDK v2 client -> our server, Streamable HTTP, legacy negotiation (2025-11-25 session)', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('legacy');
  });
  after(async () => {
    await s.client.close();
  });

  it('initializes a 2025-11-25 session', () => {
    assert.equal(s.client.getProtocolEra(), 'legacy');
    assert.equal(s.client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
    assert.deepEqual(s.client.getServerCapabilities()?.tasks?.requests, { tools: { call: {} } });
  });
  toolMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  legacyNotificationChecks(
    it,
    () => ({
      driver: v2Driver(s.client, s.wire),
      events: s.events,
      setLoggingLevel: (l) => s.client.setLoggingLevel(l),
      subscribeResource: (p) => s.client.subscribeResource(p),
      unsubscribeResource: (p) => s.client.unsubscribeResource(p),
    }),
    2000,
  );
});

describe('interop: SDK v2 client (no capabilities) -> our server, Streamable HTTP, 2025-11-25 session', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('legacy', 'none');
  });
  after(async () => {
    await s.client.close();
  });
  missingCapabilityChecks(it, () => v2Driver(s.client, s.wire));
});
